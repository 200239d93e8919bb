// Optional sound effects: short WebAudio beeps, off when muted (remembered).

const TONES = {
  play: [[520, 0.06]],
  draw: [[330, 0.06]],
  turn: [[660, 0.08], [880, 0.1]],
  good: [[523, 0.08], [659, 0.08], [784, 0.14]],
  bad: [[220, 0.12], [180, 0.18]],
  chat: [[990, 0.04]],
};

let ctx = null;
let muted = localStorage.getItem("parlour.muted") === "1";

export const isMuted = () => muted;

export function setMuted(value) {
  muted = value;
  localStorage.setItem("parlour.muted", value ? "1" : "0");
}

export function beep(name) {
  if (muted || !TONES[name]) return;
  try {
    ctx ??= new AudioContext();
    let t = ctx.currentTime;
    for (const [freq, len] of TONES[name]) {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.08, t);
      gain.gain.exponentialRampToValueAtTime(0.001, t + len);
      osc.connect(gain).connect(ctx.destination);
      osc.start(t);
      osc.stop(t + len);
      t += len;
    }
  } catch {
    // Audio is a nicety; a browser without it just stays quiet.
  }
}
