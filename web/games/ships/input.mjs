// ships' input: the keyboard (arrow keys or W, A, D, and space) and, on a touch screen, four
// buttons over the field, folded into the buttons held, sent whenever they change (the session
// sends at most one command a tick and none when nothing changed). It sends nothing by itself
// but through `send`, and decides nothing about the game.
import { BUTTONS } from './palette.mjs';

const KEYS = {
  ArrowUp: BUTTONS.thrust, KeyW: BUTTONS.thrust,
  ArrowLeft: BUTTONS.turnLeft, KeyA: BUTTONS.turnLeft,
  ArrowRight: BUTTONS.turnRight, KeyD: BUTTONS.turnRight,
  Space: BUTTONS.fire,
};

const TOUCH = [['⟲', BUTTONS.turnLeft], ['▲', BUTTONS.thrust], ['◉', BUTTONS.fire], ['⟳', BUTTONS.turnRight]];

/**
 * @param {HTMLElement} container the field's element (the touch buttons go inside it)
 * @param {(buttons: number) => void} send the buttons held, on every change
 * @returns {{held: () => number}}
 */
export function listenForButtons(container, send) {
  const keys = new Set();           // key codes held
  const touches = new Map();        // pointer id -> button bit
  let held = 0;
  const update = () => {
    let now = 0;
    for (const code of keys) now |= KEYS[code];
    for (const bit of touches.values()) now |= bit;
    if (now === held) return;
    held = now;
    send(held);
  };

  window.addEventListener('keydown', (e) => {
    if (!(e.code in KEYS) || e.ctrlKey || e.metaKey || e.altKey) return;
    e.preventDefault();   // the arrows and space would scroll the page
    keys.add(e.code);
    update();
  });
  window.addEventListener('keyup', (e) => {
    if (!keys.delete(e.code)) return;
    update();
  });
  // Focus gone (another tab, a dialog): nothing stays held.
  window.addEventListener('blur', () => {
    keys.clear();
    touches.clear();
    update();
  });

  const pad = document.createElement('div');
  pad.className = 'touch-pad';
  Object.assign(pad.style, { position: 'absolute', left: '50%', bottom: '18px', transform: 'translateX(-50%)', display: 'flex',
    gap: '14px', zIndex: '2', touchAction: 'none' });
  pad.hidden = !window.matchMedia?.('(pointer: coarse)').matches;
  for (const [label, bit] of TOUCH) {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = label;
    Object.assign(button.style, { width: '64px', height: '64px', borderRadius: '50%', fontSize: '26px', opacity: '0.75',
      touchAction: 'none', userSelect: 'none' });
    button.addEventListener('pointerdown', (e) => {
      e.preventDefault();
      button.setPointerCapture?.(e.pointerId);
      touches.set(e.pointerId, bit);
      update();
    });
    const release = (e) => {
      if (!touches.delete(e.pointerId)) return;
      update();
    };
    button.addEventListener('pointerup', release);
    button.addEventListener('pointercancel', release);
    pad.append(button);
  }
  container.append(pad);
  // The first touch anywhere shows the pad (a touch screen whose media query said otherwise).
  window.addEventListener('touchstart', () => { pad.hidden = false; }, { once: true, passive: true });
  return { held: () => held };
}
