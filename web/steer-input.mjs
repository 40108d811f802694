// Pointer and touch steering: the left mouse button or one finger, pressed or dragged on the
// arena, becomes a target point in arena units handed to the adapter. Two fingers belong to
// the camera (the renderer's orbit controls), so a second finger ends steering.

/**
 * @param {HTMLElement} surface the arena's canvas
 * @param {(clientX: number, clientY: number) => ({x: number, y: number} | null)} pick screen -> arena
 * @param {(point: {x: number, y: number}) => void} steer
 */
export function listenForSteering(surface, pick, steer) {
  const touches = new Set();
  let steering = null;   // the pointer id that steers, if any

  const aim = (e) => {
    const point = pick(e.clientX, e.clientY);
    if (point !== null) steer(point);
  };

  surface.addEventListener('pointerdown', (e) => {
    if (e.pointerType === 'touch') {
      touches.add(e.pointerId);
      if (touches.size > 1) {
        steering = null;
        return;
      }
    } else if (e.button !== 0) {
      return;
    }
    steering = e.pointerId;
    aim(e);
  });
  surface.addEventListener('pointermove', (e) => {
    if (e.pointerId === steering) aim(e);
  });
  const end = (e) => {
    touches.delete(e.pointerId);
    if (e.pointerId === steering) steering = null;
  };
  surface.addEventListener('pointerup', end);
  surface.addEventListener('pointercancel', end);
}
