// What every part of ships' view shares: one colour per player id (the same on the field and in
// the HUD's list), and the held buttons as ships' command spells them (a bit each:
// src/games/ships/include/ships/world.hpp, Button). Presentation only.

const PALETTE = ['#4cc9f0', '#f72585', '#b5e48c', '#ffb703', '#9d4edd', '#06d6a0', '#ff6b35', '#8ecae6'];

export const playerColourCss = (player) => PALETTE[player % PALETTE.length];

export const BUTTONS = Object.freeze({ thrust: 1, turnLeft: 2, turnRight: 4, fire: 8 });
