// The guest profile: who this browser is across visits and rooms. Its id and secret live in
// localStorage; the server keeps only a hash of the secret. Sent on every identify, and as the
// X-Parlour-Profile header to the history API (a private room's games are shown to their players).

const KEY = "parlour.profile";

/** {id, secret} as the server gave them, or null before the first identify. */
export function storedProfile() {
  try {
    const value = JSON.parse(localStorage.getItem(KEY) ?? "null");
    return value && typeof value.id === "string" && typeof value.secret === "string" ? value : null;
  } catch {
    return null;
  }
}

/** The identify message's `profile` field (none yet: the server makes one). */
export function profileField() {
  const profile = storedProfile();
  return profile ? { profile } : {};
}

/** Keep the profile a welcome names: a new one comes with its secret, shown this once. */
export function keepProfile(profile) {
  if (profile?.secret) localStorage.setItem(KEY, JSON.stringify({ id: profile.id, secret: profile.secret }));
}

/** Headers for the history API's requests. */
export function profileHeaders() {
  const profile = storedProfile();
  return profile ? { "X-Parlour-Profile": `${profile.id}:${profile.secret}` } : {};
}
