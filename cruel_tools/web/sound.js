/**
 * sound.js: the play page's sounds (docs/web.md "Sound"), off until the player turns them on
 * (remembered in localStorage `cruel.sound`: `on`, else off). Each sound is made on the spot with
 * Web Audio, no sound file: a short tick for a card moved, a brighter one for a card on its
 * foundation, a rising arpeggio for a win. Nothing is played, and no AudioContext is made,
 * while sound is off or the page is hidden (a tab in the background stays quiet).
 *
 * @module sound
 */

export const SOUND_KEY = 'cruel.sound';

/** Whether the player turned sound on (remembered; off when storage is refused). */
export function soundOn() {
  try {
    return localStorage.getItem(SOUND_KEY) === 'on';
  } catch {
    return false;
  }
}

let context = null; // made at the first sound played, never before

// Each sound: notes of [frequency Hz, start s, length s], a wave and a loudness.
const SOUNDS = {
  move: { wave: 'triangle', gain: 0.12, notes: [[520, 0, 0.06]] },
  foundation: { wave: 'triangle', gain: 0.12, notes: [[784, 0, 0.07], [1046, 0.05, 0.09]] },
  win: { wave: 'sine', gain: 0.16, notes: [[523, 0, 0.16], [659, 0.12, 0.16], [784, 0.24, 0.16], [1046, 0.36, 0.4]] },
};

/**
 * Play sound `kind` ('move', 'foundation', 'win') if sound is on and the page is seen.
 * @returns {boolean} whether it played
 */
export function playSound(kind) {
  const sound = SOUNDS[kind];
  const Context = globalThis.AudioContext ?? globalThis.webkitAudioContext;
  if (!sound || !soundOn() || document.hidden || !Context) {
    return false;
  }
  context ??= new Context();
  if (context.state === 'suspended') {
    context.resume().catch(() => {});
  }
  const now = context.currentTime;
  for (const [freq, at, length] of sound.notes) {
    const osc = context.createOscillator();
    const amp = context.createGain();
    osc.type = sound.wave;
    osc.frequency.value = freq;
    // a quick attack and an exponential fade: a click-free, short note
    amp.gain.setValueAtTime(0.0001, now + at);
    amp.gain.exponentialRampToValueAtTime(sound.gain, now + at + 0.01);
    amp.gain.exponentialRampToValueAtTime(0.0001, now + at + length);
    osc.connect(amp).connect(context.destination);
    osc.start(now + at);
    osc.stop(now + at + length + 0.02);
  }
  return true;
}
