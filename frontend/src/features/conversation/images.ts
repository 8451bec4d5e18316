// Images pasted or dropped into the composer: the checks made before a
// byte is uploaded (size, kind by content, count). The kernel makes the
// same checks again (AddImage): these only spare the upload and word the
// refusal at once.
import { MaxImageBytes, MaxImagesPerMessage } from "../../backend/gen/kernel";

export { MaxImageBytes, MaxImagesPerMessage };

/** megabytes words a byte count as the kernel does: "52.3 MB", "50 MB". */
export function megabytes(n: number): string {
  return `${(n / 1e6).toFixed(1).replace(/\.0$/, "")} MB`;
}

/** tooBig is the refusal of an image over MaxImageBytes, naming it, its size and the limit; null when it fits. */
export function tooBig(name: string, size: number): string | null {
  if (size <= MaxImageBytes) return null;
  // Just over: rounded to MB it would read as within the limit.
  const shown = size < MaxImageBytes + 50_000 ? `${size} bytes` : `${(size / 1e6).toFixed(1)} MB`;
  return `${name} is ${shown}; images are limited to ${megabytes(MaxImageBytes)}: attach a smaller one (a JPEG or a cropped screenshot).`;
}

/**
 * sniff names the image type of a file's first bytes (PNG, JPEG, GIF,
 * WebP), or null: what the content is, whatever the name or the type the
 * browser guessed from it says.
 */
export function sniff(head: Uint8Array): string | null {
  const at = (i: number, s: string) => [...s].every((c, j) => head[i + j] === c.charCodeAt(0));
  if (head.length >= 8 && at(0, "\x89PNG\r\n\x1a\n")) return "image/png";
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return "image/jpeg";
  if (head.length >= 6 && (at(0, "GIF87a") || at(0, "GIF89a"))) return "image/gif";
  if (head.length >= 12 && at(0, "RIFF") && at(8, "WEBP")) return "image/webp";
  return null;
}

/** notAnImage is the refusal of a file whose content is not an image Foya sends. */
export function notAnImage(name: string): string {
  return `${name} is not an image Foya can send (by its content, whatever its name says): attach a PNG, JPEG, GIF or WebP image.`;
}

/** tooMany is the refusal of images beyond MaxImagesPerMessage. */
export function tooMany(names: string[]): string {
  const n = names.length;
  return `A message may carry at most ${MaxImagesPerMessage} images: ${n === 1 ? names[0] : `${n} images (${names.join(", ")})`} left out. Send ${n === 1 ? "it" : "them"} in another message.`;
}

/** fileName is a file's name, or one for a clipboard image that has none. */
export function fileName(f: File, mime: string): string {
  if (f.name !== "" && f.name !== "image.png") return f.name;
  return `pasted image.${mime.slice("image/".length).replace("jpeg", "jpg")}`;
}

/** readHead reads a file's first bytes, enough for sniff. */
export function readHead(f: Blob): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(new Uint8Array(r.result as ArrayBuffer));
    r.onerror = () => reject(r.error ?? new Error("the file could not be read"));
    r.readAsArrayBuffer(f.slice(0, 16));
  });
}

/** readBase64 reads a file as standard base64, what AddImage takes. */
export function readBase64(f: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => {
      const url = r.result as string;
      resolve(url.slice(url.indexOf(",") + 1));
    };
    r.onerror = () => reject(r.error ?? new Error("the file could not be read"));
    r.readAsDataURL(f);
  });
}
