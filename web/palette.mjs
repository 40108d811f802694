// What every view of the arena shares so that they agree: one colour per player id (the same
// on every page and in the HUD's list) and the rule that tells a respawned pellet from a
// moving one. Presentation only.

const PALETTE = [
  0x4cc9f0, 0xf72585, 0xb5e48c, 0xffb703, 0x9d4edd, 0x06d6a0, 0xff6b35, 0x8ecae6,
  0xef476f, 0xffd166, 0x3a86ff, 0xc77dff, 0x80ed99, 0xfb8500, 0x48cae4, 0xe5e5e5,
];

export const playerColour = (player) => PALETTE[player % PALETTE.length];
export const playerColourCss = (player) => `#${playerColour(player).toString(16).padStart(6, '0')}`;

// A pellet that moved further than this (|dx| + |dy|, arena units) in one tick fell into a well
// and respawned elsewhere: draw it where it is instead of sliding it across the arena. Pellet
// speed is capped at 300 units/s per axis, 10 units per tick at 60 Hz.
export const RESPAWN_JUMP = 40;
