// What every view of the arena shares so that they agree: one colour per player id (the same
// on every page and in the HUD's list), and how a renderer reads the drawn view's columns (the
// plugin's selection: web/games/arena/plugin.mjs). Presentation only.

const PALETTE = [
  0x4cc9f0, 0xf72585, 0xb5e48c, 0xffb703, 0x9d4edd, 0x06d6a0, 0xff6b35, 0x8ecae6,
  0xef476f, 0xffd166, 0x3a86ff, 0xc77dff, 0x80ed99, 0xfb8500, 0x48cae4, 0xe5e5e5,
];

export const playerColour = (player) => PALETTE[player % PALETTE.length];
export const playerColourCss = (player) => `#${playerColour(player).toString(16).padStart(6, '0')}`;

/** The arena's side in units from the drawn view, or null before a world. */
export const arenaSizeOf = (view) => view.current?.scalars['config.arena_size'] ?? null;

/**
 * The wells drawn, [{player, x, y, prevX, prevY, targetX, targetY, score}] in units (prev: the
 * same well before the last step, matched by player; the predicted view's eased correction is
 * in both already).
 */
export function wellsOf(view) {
  const now = view.current?.lists.wells;
  if (!now) return [];
  const before = view.previous?.lists.wells;
  const c = now.columns;
  const out = [];
  for (let i = 0; i < now.count; ++i) {
    const well = { player: c.player[i], x: c['pos.x'][i], y: c['pos.y'][i], targetX: c['target.x'][i], targetY: c['target.y'][i], score: c.score[i] };
    well.prevX = well.x;
    well.prevY = well.y;
    if (before) {
      for (let j = 0; j < before.count; ++j) {
        if (before.columns.player[j] !== well.player) continue;
        well.prevX = before.columns['pos.x'][j];
        well.prevY = before.columns['pos.y'][j];
      }
    }
    out.push(well);
  }
  return out;
}

/**
 * The pellets drawn: x and y now, and before the last step where the same pellet was there (a
 * pellet whose generation changed was captured and respawned by that step: it is drawn where
 * it is, never slid across the arena). `previous` null: draw `current` only.
 */
export function pelletsOf(view) {
  const now = view.current?.lists.pellets;
  if (!now) return { count: 0, x: null, y: null, previous: null };
  const before = view.previous?.lists.pellets;
  const same = before && before.count === now.count ? before : null;
  return {
    count: now.count,
    x: now.columns['pos.x'],
    y: now.columns['pos.y'],
    generation: now.columns.generation,
    previous: same && { x: same.columns['pos.x'], y: same.columns['pos.y'], generation: same.columns.generation },
  };
}
