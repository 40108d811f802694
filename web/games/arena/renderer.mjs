// Draws the arena in 3D with three.js from a render view (web/README.md: the columns the
// plugin selected): the ground relief, every pellet as one instance of one mesh, the wells with
// rings in their owner's colour, a flash for each capture the step reported (its events), and
// the person's steer target, at a resolution lowered while frames come slowly (software WebGL).
// It reads the view and writes GPU buffers; it never changes the simulation and never keeps a
// reference to the view's arrays (they may be views into wasm memory, valid only until the next
// call into it).
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { DynamicResolution, resolutionNotice } from '../../dynamic-resolution.mjs';
import { arenaSizeOf, pelletsOf, playerColour, wellsOf } from './palette.mjs';
import { HeightGrid } from './terrain.mjs';

const RELIEF_AMPLITUDE = 28;     // units of height at relief 1.0
const GROUND_CELLS = 64;        // ground mesh resolution per side
const PELLET_RADIUS = 2.6;
const WELL_RADIUS = 9;
const FLASH_MS = 450;
const FLASH_POOL = 48;

const lerp = (a, b, t) => a + (b - a) * t;

export class ArenaRenderer {
  kind = 'webgl';
  #container;
  #renderer;
  #scene;
  #camera;
  #controls;
  #arenaSize = null;
  #relief;
  #grid;
  #ground = null;
  #pellets = null;
  #wells = new Map();
  #flashes = [];
  #target;
  #flashedThrough = -1;   // the newest tick whose events have flashed
  #groundPlane = new THREE.Plane(new THREE.Vector3(0, 1, 0), 0);
  #raycaster = new THREE.Raycaster();
  #ndc = new THREE.Vector2();
  #hit = new THREE.Vector3();
  // The drawing resolution: the display's (at most 2 pixels per CSS pixel) times a scale that
  // drops while frames come slowly (dynamic-resolution.mjs).
  #displayRatio;
  #resolution;
  #onResolution;

  /**
   * @param {HTMLElement} container
   * @param {{arenaSize: number, relief: (x: number, z: number) => number}} arena
   * @param {{fullResolution?: boolean, onResolution?: (notice: string|null) => void}} [drawing]
   *   fullResolution: never lower the resolution; onResolution: told the HUD's words each time
   *   it changes (null: full again)
   */
  constructor(container, { arenaSize, relief }, { fullResolution = false, onResolution = () => {} } = {}) {
    this.#container = container;
    this.#relief = relief;
    this.#renderer = new THREE.WebGLRenderer({ antialias: false, powerPreference: 'high-performance' });
    this.#displayRatio = Math.min(window.devicePixelRatio, 2);
    this.#resolution = new DynamicResolution({ pinned: fullResolution });
    this.#onResolution = onResolution;
    this.#renderer.setPixelRatio(this.#displayRatio * this.#resolution.scale);
    container.appendChild(this.#renderer.domElement);

    const scene = new THREE.Scene();
    scene.background = new THREE.Color(0x0b0f14);
    scene.add(new THREE.HemisphereLight(0xbfd8ff, 0x1b1408, 1.6));
    const sun = new THREE.DirectionalLight(0xffffff, 1.8);
    sun.position.set(-0.4, 1, 0.3);
    scene.add(sun);
    this.#scene = scene;
    this.#groundPlane.constant = -RELIEF_AMPLITUDE / 2;

    this.#camera = new THREE.PerspectiveCamera(50, 1, 1, 1);
    const controls = new OrbitControls(this.#camera, this.#renderer.domElement);
    // The left button and one finger steer the well; the camera takes the others.
    controls.mouseButtons = { LEFT: -1, MIDDLE: THREE.MOUSE.DOLLY, RIGHT: THREE.MOUSE.ROTATE };
    controls.touches = { ONE: -1, TWO: THREE.TOUCH.DOLLY_ROTATE };
    controls.maxPolarAngle = Math.PI * 0.47;
    controls.enableDamping = true;
    this.#controls = controls;
    this.#fitArena(arenaSize);

    this.#target = new THREE.Mesh(
      new THREE.RingGeometry(5, 7, 32).rotateX(-Math.PI / 2),
      new THREE.MeshBasicMaterial({ color: 0xffffff, transparent: true, opacity: 0.85, depthWrite: false }));
    this.#target.visible = false;
    scene.add(this.#target);

    const flashGeometry = new THREE.RingGeometry(0.7, 1, 32).rotateX(-Math.PI / 2);
    for (let i = 0; i < FLASH_POOL; ++i) {
      const mesh = new THREE.Mesh(flashGeometry, new THREE.MeshBasicMaterial({ transparent: true, depthWrite: false, side: THREE.DoubleSide }));
      mesh.visible = false;
      mesh.userData.bornMs = -Infinity;
      scene.add(mesh);
      this.#flashes.push(mesh);
    }

    this.resize();
    window.addEventListener('resize', () => this.resize());
  }

  get canvas() { return this.#renderer.domElement; }

  resize() {
    const w = Math.max(1, this.#container.clientWidth);
    const h = Math.max(1, this.#container.clientHeight);
    this.#renderer.setSize(w, h, false);
    this.#camera.aspect = w / h;
    // On a tall phone screen step back so the whole arena stays in view.
    this.#camera.fov = w / h < 0.8 ? 70 : 50;
    this.#camera.updateProjectionMatrix();
  }

  /**
   * The arena point under a screen position, as (x, y) in arena units, or null when the ray
   * misses the ground. The person's steer target: the adapter turns it into the input.
   */
  arenaPointAt(clientX, clientY) {
    const rect = this.canvas.getBoundingClientRect();
    this.#ndc.set(((clientX - rect.left) / rect.width) * 2 - 1, -((clientY - rect.top) / rect.height) * 2 + 1);
    this.#raycaster.setFromCamera(this.#ndc, this.#camera);
    if (this.#raycaster.ray.intersectPlane(this.#groundPlane, this.#hit) === null) return null;
    const clamp = (v) => Math.min(Math.max(v, 0), this.#arenaSize);
    return { x: clamp(this.#hit.x), y: clamp(this.#hit.z) };
  }

  /** What was drawn last frame, for the HUD and the tests. */
  stats() {
    const info = this.#renderer.info.render;
    return { kind: this.kind, pellets: this.#pellets?.count ?? 0, wells: this.#wells.size, drawCalls: info.calls, triangles: info.triangles,
      resolution: this.#resolution.scale };
  }

  draw(view, nowMs) {
    this.#adaptResolution(nowMs);
    // Before the server's welcome the session has no world (no columns): keep the ground.
    const size = arenaSizeOf(view);
    if (size !== null && size !== this.#arenaSize) this.#fitArena(size);
    const t = Math.min(Math.max(view.alpha, 0), 1);
    const pellets = pelletsOf(view);
    this.#drawPellets(pellets, t);
    this.#drawWells(wellsOf(view), view.me, t);
    this.#startFlashes(view, pellets, nowMs);
    this.#ageFlashes(nowMs);
    this.#controls.update();
    this.#renderer.render(this.#scene, this.#camera);
  }

  #adaptResolution(nowMs) {
    const before = this.#resolution.scale;
    const scale = this.#resolution.frame(nowMs);
    if (scale === before) return;
    this.#renderer.setPixelRatio(this.#displayRatio * scale);   // resizes the canvas at its current size
    this.#onResolution(resolutionNotice(this.#resolution));
  }

  // Ground, fog and camera for an arena of `size` units (at start, and again if a session's
  // world turns out to have another size than the page guessed).
  #fitArena(size) {
    this.#arenaSize = size;
    this.#scene.fog = new THREE.Fog(0x0b0f14, size * 1.6, size * 3.2);
    this.#grid = new HeightGrid(this.#relief, size, GROUND_CELLS, RELIEF_AMPLITUDE);
    if (this.#ground !== null) {
      this.#scene.remove(this.#ground);
      this.#ground.traverse((o) => { o.geometry?.dispose(); o.material?.dispose(); });
    }
    this.#ground = this.#makeGround();
    this.#scene.add(this.#ground);
    const half = size / 2;
    this.#camera.far = size * 8;
    this.#camera.position.set(half, size * 0.78, size * 1.32);
    this.#camera.updateProjectionMatrix();
    this.#controls.target.set(half, 0, half);
    this.#controls.minDistance = size * 0.15;
    this.#controls.maxDistance = size * 3;
    this.#controls.update();
  }

  #makeGround() {
    const size = this.#arenaSize;
    const geometry = new THREE.PlaneGeometry(size, size, GROUND_CELLS, GROUND_CELLS).rotateX(-Math.PI / 2).translate(size / 2, 0, size / 2);
    const pos = geometry.attributes.position;
    const colours = new Float32Array(pos.count * 3);
    const low = new THREE.Color(0x1d3b2a);
    const high = new THREE.Color(0x8a7a52);
    const c = new THREE.Color();
    for (let i = 0; i < pos.count; ++i) {
      const h = this.#grid.at(pos.getX(i), pos.getZ(i));
      pos.setY(i, h);
      c.lerpColors(low, high, h / RELIEF_AMPLITUDE).toArray(colours, i * 3);
    }
    geometry.setAttribute('color', new THREE.BufferAttribute(colours, 3));
    geometry.computeVertexNormals();
    const ground = new THREE.Mesh(geometry, new THREE.MeshLambertMaterial({ vertexColors: true }));
    const edge = new THREE.LineSegments(
      new THREE.EdgesGeometry(new THREE.BoxGeometry(size, RELIEF_AMPLITUDE * 1.4, size)).translate(size / 2, RELIEF_AMPLITUDE * 0.7, size / 2),
      new THREE.LineBasicMaterial({ color: 0x3d5a80 }));
    const group = new THREE.Group();
    group.add(ground, edge);
    return group;
  }

  #pelletMesh(count) {
    if (this.#pellets !== null && this.#pellets.userData.capacity >= count) return this.#pellets;
    if (this.#pellets !== null) {
      this.#scene.remove(this.#pellets);
      this.#pellets.dispose();
    }
    const mesh = new THREE.InstancedMesh(
      new THREE.OctahedronGeometry(PELLET_RADIUS, 0),
      new THREE.MeshBasicMaterial({ color: 0xffd36e }),
      Math.max(count, 1));
    mesh.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
    mesh.frustumCulled = false;   // instances span the arena; the mesh's own bounds do not
    mesh.userData.capacity = Math.max(count, 1);
    // Identity rotation and scale once; each frame writes only the translations.
    const m = mesh.instanceMatrix.array;
    for (let i = 0; i < mesh.userData.capacity; ++i) {
      m[16 * i] = 1; m[16 * i + 5] = 1; m[16 * i + 10] = 1; m[16 * i + 15] = 1;
    }
    this.#scene.add(mesh);
    this.#pellets = mesh;
    return mesh;
  }

  // The pellets' columns, in arena units, read once straight into the instance buffer: no
  // per-pellet objects. A pellet the step respawned (its generation changed) is not blended.
  #drawPellets({ count, x: xs, y: ys, generation, previous }, t) {
    const mesh = this.#pelletMesh(count);
    const m = mesh.instanceMatrix.array;
    for (let i = 0; i < count; ++i) {
      let x = xs[i];
      let z = ys[i];
      if (previous !== null && previous.generation[i] === generation[i]) {
        x = lerp(previous.x[i], x, t);
        z = lerp(previous.y[i], z, t);
      }
      m[16 * i + 12] = x;
      m[16 * i + 13] = this.#grid.at(x, z) + PELLET_RADIUS;
      m[16 * i + 14] = z;
    }
    mesh.count = count;
    mesh.instanceMatrix.needsUpdate = true;
  }

  #wellMesh(player) {
    let group = this.#wells.get(player);
    if (group !== undefined) return group;
    const colour = playerColour(player);
    group = new THREE.Group();
    group.add(new THREE.Mesh(
      new THREE.SphereGeometry(WELL_RADIUS, 24, 16),
      new THREE.MeshStandardMaterial({ color: colour, emissive: colour, emissiveIntensity: 0.35, roughness: 0.4 })));
    const ring = new THREE.Mesh(
      new THREE.TorusGeometry(WELL_RADIUS * 1.9, 1.1, 8, 48).rotateX(Math.PI / 2),
      new THREE.MeshBasicMaterial({ color: colour }));
    group.add(ring);
    this.#scene.add(group);
    this.#wells.set(player, group);
    return group;
  }

  #drawWells(wells, me, t) {
    const seen = new Set();
    let myTarget = null;
    for (const w of wells) {
      seen.add(w.player);
      const group = this.#wellMesh(w.player);
      const x = lerp(w.prevX ?? w.x, w.x, t);
      const z = lerp(w.prevY ?? w.y, w.y, t);
      group.position.set(x, this.#grid.at(x, z) + WELL_RADIUS + 2, z);
      if (w.player === me && w.targetX !== undefined) myTarget = w;
    }
    for (const [player, group] of this.#wells) {
      if (seen.has(player)) continue;
      this.#scene.remove(group);
      this.#wells.delete(player);
    }
    this.#target.visible = myTarget !== null;
    if (myTarget !== null) {
      this.#target.position.set(myTarget.targetX, this.#grid.at(myTarget.targetX, myTarget.targetY) + 1.5, myTarget.targetY);
    }
  }

  // A capture (the step's event) flashes where the pellet was, in the capturing player's colour.
  #startFlashes(view, pellets, nowMs) {
    const previous = pellets.previous;
    if (view.tick < this.#flashedThrough) this.#flashedThrough = -1;   // a new world (a restarted server)
    let newest = this.#flashedThrough;
    for (const e of view.events) {
      if (e.kind !== 'captured' || e.tick <= this.#flashedThrough) continue;
      newest = Math.max(newest, e.tick);
      const flash = this.#flashes.reduce((oldest, f) => (f.userData.bornMs < oldest.userData.bornMs ? f : oldest));
      let x;
      let z;
      if (previous !== null && e.pellet < pellets.count) {
        x = previous.x[e.pellet];
        z = previous.y[e.pellet];
      } else {
        const well = wellsOf(view).find((w) => w.player === e.player);
        if (well === undefined) continue;
        x = well.x;
        z = well.y;
      }
      flash.position.set(x, this.#grid.at(x, z) + 2, z);
      flash.material.color.setHex(playerColour(e.player));
      flash.userData.bornMs = nowMs;
      flash.visible = true;
    }
    this.#flashedThrough = newest;
  }

  #ageFlashes(nowMs) {
    for (const f of this.#flashes) {
      if (!f.visible) continue;
      const age = (nowMs - f.userData.bornMs) / FLASH_MS;
      if (age >= 1 || age < 0) {
        f.visible = false;
        continue;
      }
      const s = 6 + 30 * age;
      f.scale.set(s, 1, s);
      f.material.opacity = 1 - age;
    }
  }
}
