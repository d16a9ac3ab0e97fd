/**
 * Sound and desktop notifications for new waiting conversations (issue 21): opt-in per browser,
 * the Notification permission asked only from the user's click.
 */
const STORAGE = 'agentry.inboxAlerts';

export interface AlertPrefs {
  sound: boolean;
  desktop: boolean;
}

export function readAlertPrefs(): AlertPrefs {
  try {
    const parsed = JSON.parse(localStorage.getItem(STORAGE) ?? '{}') as Partial<AlertPrefs>;
    return { sound: parsed.sound === true, desktop: parsed.desktop === true };
  } catch {
    return { sound: false, desktop: false };
  }
}

export function saveAlertPrefs(prefs: AlertPrefs): void {
  localStorage.setItem(STORAGE, JSON.stringify(prefs));
}

/** Asks for the browser's permission (call from a click handler only); true when granted. */
export async function askDesktopPermission(): Promise<boolean> {
  if (typeof Notification === 'undefined') return false;
  if (Notification.permission === 'granted') return true;
  if (Notification.permission === 'denied') return false;
  return (await Notification.requestPermission()) === 'granted';
}

/** A short two-tone chime (Web Audio: no sound file to ship). */
function chime(): void {
  const Ctx = window.AudioContext;
  if (!Ctx) return;
  const ctx = new Ctx();
  const gain = ctx.createGain();
  gain.gain.value = 0.08;
  gain.connect(ctx.destination);
  [880, 660].forEach((frequency, i) => {
    const osc = ctx.createOscillator();
    osc.frequency.value = frequency;
    osc.connect(gain);
    osc.start(ctx.currentTime + i * 0.15);
    osc.stop(ctx.currentTime + i * 0.15 + 0.12);
  });
  setTimeout(() => void ctx.close(), 600);
}

/** Tells the member a conversation waits, in the ways they opted in to. */
export function alertWaiting(title: string, body: string, prefs = readAlertPrefs()): void {
  if (prefs.sound) {
    try {
      chime();
    } catch {
      // Autoplay rules may refuse audio before the page had a click; the badge still shows it.
    }
  }
  if (prefs.desktop && typeof Notification !== 'undefined' && Notification.permission === 'granted') {
    new Notification(title, { body, tag: 'agentry-inbox' });
  }
}
