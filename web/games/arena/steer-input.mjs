// Pointer and touch steering: the left mouse button or one finger, pressed or dragged on the
// arena, becomes a target point in arena units handed to the adapter. Two fingers belong to
// the camera (the renderer's orbit controls). A finger steers only once it is known to be
// alone: when it moves or lifts with no second finger down, so a pinch never jerks the well
// toward wherever its first finger landed.

/**
 * @param {HTMLElement} surface the arena's canvas
 * @param {(clientX: number, clientY: number) => ({x: number, y: number} | null)} pick screen -> arena
 * @param {(point: {x: number, y: number}) => void} steer
 */
export function listenForSteering(surface, pick, steer) {
  const touches = new Set();
  let steering = null;       // the pointer id that steers, if any
  let pendingTouch = null;   // a lone finger's down event, held until it is known to be alone

  const aim = (e) => {
    const point = pick(e.clientX, e.clientY);
    if (point !== null) steer(point);
  };

  surface.addEventListener('pointerdown', (e) => {
    if (e.pointerType === 'touch') {
      touches.add(e.pointerId);
      steering = null;
      pendingTouch = touches.size === 1 ? { pointerId: e.pointerId, clientX: e.clientX, clientY: e.clientY } : null;
      return;
    }
    if (e.button !== 0) return;
    steering = e.pointerId;
    aim(e);
  });
  surface.addEventListener('pointermove', (e) => {
    if (pendingTouch !== null && e.pointerId === pendingTouch.pointerId && touches.size === 1) {
      steering = e.pointerId;
      pendingTouch = null;
    }
    if (e.pointerId === steering) aim(e);
  });
  const end = (e) => {
    // A tap: one finger down and up with no other finger meanwhile.
    if (e.type === 'pointerup' && pendingTouch !== null && e.pointerId === pendingTouch.pointerId) aim(pendingTouch);
    if (pendingTouch !== null && e.pointerId === pendingTouch.pointerId) pendingTouch = null;
    touches.delete(e.pointerId);
    if (e.pointerId === steering) steering = null;
  };
  surface.addEventListener('pointerup', end);
  surface.addEventListener('pointercancel', end);
}
