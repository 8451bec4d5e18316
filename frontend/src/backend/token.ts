// The token of `foya serve`, kept where no other origin can reach it.
//
// foya serve prints http://127.0.0.1:PORT/#token=T. A browser never sends
// the fragment over the network; the page takes the token from it, keeps
// it in this tab's sessionStorage (scoped to scheme, host and port, so a
// server on another port of 127.0.0.1 cannot read it) and removes it from
// the address bar and the history entry. A reload finds it in
// sessionStorage. There is no cookie: cookies are not scoped to a port,
// and the browser would send one to every other server on 127.0.0.1.

/** tokenKey is the sessionStorage key the token is kept under. */
export const tokenKey = "foya.token";

/** The parts of window that takeToken uses (tests pass their own). */
export interface TokenPlace {
  location: { pathname: string; search: string; hash: string };
  history: { replaceState(data: unknown, unused: string, url?: string): void };
  sessionStorage: { getItem(key: string): string | null; setItem(key: string, value: string): void };
}

/**
 * takeToken returns the token for this tab: the one in the address's
 * fragment (#token=T, also among other fragment parameters), which it then
 * keeps in sessionStorage and removes from the address, else the one kept
 * by an earlier load of this tab, else "".
 */
export function takeToken(w: TokenPlace): string {
  const params = new URLSearchParams(w.location.hash.replace(/^#/, ""));
  const fresh = params.get("token");
  if (fresh !== null) {
    params.delete("token");
    const rest = params.toString();
    w.history.replaceState(null, "", `${w.location.pathname}${w.location.search}${rest === "" ? "" : `#${rest}`}`);
    if (fresh !== "") {
      try {
        w.sessionStorage.setItem(tokenKey, fresh);
      } catch {
        // Storage refused (a private mode): the token lasts until a reload.
      }
      return fresh;
    }
  }
  try {
    return w.sessionStorage.getItem(tokenKey) ?? "";
  } catch {
    return "";
  }
}
