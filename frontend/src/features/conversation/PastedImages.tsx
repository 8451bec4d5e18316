// Images pasted (Ctrl+V) or dropped into the composer: each is checked
// (size, kind by content, count), stored at once through AddImage and shown
// as a removable thumbnail chip until the message goes; the message then
// names the stored images (RunWithImages). The transcript shows a sent
// message's images from their stored small copies.
import { useCallback, useEffect, useRef, useState, type KeyboardEvent } from "react";
import { X } from "lucide-react";
import { useApi, useTransport } from "../../backend";
import type { ImageRef } from "../../backend/gen/event";
import type { PastedImage } from "../../backend/gen/kernel";
import { useLoad } from "../useLoad";
import { useSession } from "../session/hooks";
import { loadArtifact } from "./artifacts";
import { runModel } from "./format";
import "./PastedImages.css";
import { fileName, MaxImagesPerMessage, megabytes, notAnImage, readBase64, readHead, sniff, tooBig, tooMany } from "./images";

/** Chip is an image of the draft: uploading, or stored (image set). */
export interface Chip {
  key: number;
  name: string;
  size: number;
  /** A blob: URL of the file, for the chip's thumbnail ("" for an image brought back from the queue: its stored small copy shows). */
  url: string;
  image: PastedImage | null;
}

/**
 * usePastedImages keeps the draft's images: add checks and uploads files
 * (refusals go to errors, in words), remove drops one, take hands the
 * stored ones over for sending and empties the row.
 */
export function usePastedImages(sessionId: string) {
  const api = useApi();
  const [chips, setChips] = useState<Chip[]>([]);
  const [errors, setErrors] = useState<string[]>([]);
  const next = useRef(0);
  const live = useRef(chips);
  live.current = chips;
  useEffect(() => () => live.current.forEach((c) => URL.revokeObjectURL(c.url)), []);

  const add = useCallback(
    async (files: File[]) => {
      const refusals: string[] = [];
      const accepted: { file: File; name: string }[] = [];
      for (const f of files) {
        let head: Uint8Array;
        try {
          head = await readHead(f);
        } catch (e) {
          refusals.push(`${f.name || "The image"} could not be read (${e instanceof Error ? e.message : String(e)}): attach it again.`);
          continue;
        }
        const mime = sniff(head);
        const name = fileName(f, mime ?? "image/png");
        if (mime === null) {
          refusals.push(notAnImage(name));
          continue;
        }
        const big = tooBig(name, f.size);
        if (big !== null) {
          refusals.push(big);
          continue;
        }
        accepted.push({ file: f, name });
      }
      const room = Math.max(0, MaxImagesPerMessage - live.current.length);
      if (accepted.length > room) refusals.push(tooMany(accepted.slice(room).map((a) => a.name)));
      setErrors(refusals);
      const added = accepted.slice(0, room).map((a) => ({ key: next.current++, name: a.name, size: a.file.size, url: URL.createObjectURL(a.file), image: null, file: a.file }));
      if (added.length === 0) return;
      setChips((l) => [...l, ...added.map(({ file: _, ...c }) => c)]);
      await Promise.all(
        added.map(async (c) => {
          try {
            const image = await api.AddImage(sessionId, c.name, await readBase64(c.file));
            setChips((l) => l.map((x) => (x.key === c.key ? { ...x, image } : x)));
          } catch (e) {
            URL.revokeObjectURL(c.url);
            setChips((l) => l.filter((x) => x.key !== c.key));
            setErrors((l) => [...l, e instanceof Error ? e.message : String(e)]);
          }
        }),
      );
    },
    [api, sessionId],
  );
  /** restore brings back stored images (a queued message's, on Edit). */
  const restore = useCallback((images: PastedImage[]) => {
    setChips((l) => [
      ...l,
      ...images.filter((im) => !l.some((c) => c.image?.id === im.id)).map((image) => ({ key: next.current++, name: image.name, size: image.size, url: "", image })),
    ]);
  }, []);
  const remove = useCallback((c: Chip) => {
    if (c.url !== "") URL.revokeObjectURL(c.url);
    setChips((l) => l.filter((x) => x.key !== c.key));
    setErrors([]);
  }, []);
  const clear = useCallback(() => {
    live.current.forEach((c) => c.url !== "" && URL.revokeObjectURL(c.url));
    setChips([]);
    setErrors([]);
  }, []);
  const uploading = chips.some((c) => c.image === null);
  const images = chips.flatMap((c) => (c.image === null ? [] : [c.image]));
  return { chips, errors, add, restore, remove, clear, uploading, images };
}

/** imageFiles are the files of a paste or a drop (non-images too: they are refused in words, not ignored). */
export function imageFiles(data: DataTransfer | null): File[] {
  if (data === null) return [];
  return Array.from(data.files);
}

/**
 * useWindowDrop takes image files dropped anywhere in the window that no
 * other element took (the composer's own drop handler takes those on it):
 * a browser would otherwise open the file in place of Foya.
 */
export function useWindowDrop(onFiles: ((files: File[]) => void) | null) {
  useEffect(() => {
    const files = (e: DragEvent) => e.dataTransfer !== null && Array.from(e.dataTransfer.types).includes("Files");
    const over = (e: DragEvent) => {
      if (files(e)) e.preventDefault();
    };
    const drop = (e: DragEvent) => {
      if (e.defaultPrevented || !files(e)) return;
      e.preventDefault();
      onFiles?.(imageFiles(e.dataTransfer));
    };
    window.addEventListener("dragover", over);
    window.addEventListener("drop", drop);
    return () => {
      window.removeEventListener("dragover", over);
      window.removeEventListener("drop", drop);
    };
  }, [onFiles]);
}

/**
 * useImageInput is the session's model when it takes no images ("" when it
 * does, or it is not known yet): the chip row says so before sending.
 */
export function useImageInput(sessionId: string): string {
  const api = useApi();
  const { state, reload } = useLoad(
    async () => {
      const [s, providers] = await Promise.all([api.Session(sessionId), api.Providers()]);
      const model = runModel(s, providers);
      return model === "" || (await api.ImageInput(model)) ? "" : model;
    },
    [api, sessionId],
    { keep: true },
  );
  useEffect(() => {
    window.addEventListener("focus", reload);
    return () => window.removeEventListener("focus", reload);
  }, [reload]);
  return state.status === "error" ? "" : (state.value ?? "");
}

/**
 * ImageChips shows the draft's images above the message box: each a
 * thumbnail chip, focusable, removed by Delete or Backspace or its button;
 * refusals in words; and, when the session's model takes no images, what
 * happens to them.
 */
export function ImageChips(props: { chips: Chip[]; errors: string[]; textOnlyModel: string; onRemove(c: Chip): void }) {
  const { chips, errors, textOnlyModel } = props;
  const items = useRef<(HTMLLIElement | null)[]>([]);
  if (chips.length === 0 && errors.length === 0) return null;
  const onKey = (e: KeyboardEvent<HTMLLIElement>, c: Chip, i: number) => {
    if (e.target !== e.currentTarget || (e.key !== "Delete" && e.key !== "Backspace")) return;
    e.preventDefault();
    props.onRemove(c);
    // Focus stays in the row: on the next chip, else the previous one.
    items.current[i + 1 < chips.length ? i + 1 : i - 1]?.focus();
  };
  return (
    <div className="convo-images">
      {errors.map((m) => (
        <p key={m} className="convo-composer-error" role="alert">
          {m}
        </p>
      ))}
      {chips.length > 0 && textOnlyModel !== "" && (
        <p className="convo-images-note" role="note">
          {textOnlyModel} does not take images: they will be kept with your message and shown here, but not sent to the model (it gets a note
          that an image was left out). If it does take images, turn image input on for it in Settings → Models.
        </p>
      )}
      {chips.length > 0 && (
        <ul className="convo-image-chips" aria-label="Attached images">
          {chips.map((c, i) => (
            <li
              key={c.key}
              ref={(el) => {
                items.current[i] = el;
              }}
              className="convo-chip convo-image-chip"
              tabIndex={0}
              aria-label={`Image ${c.name}, ${megabytes(c.size)}${c.image === null ? ", uploading" : ""}. Delete removes it.`}
              aria-busy={c.image === null}
              onKeyDown={(e) => onKey(e, c, i)}
            >
              {c.url !== "" ? <img src={c.url} alt="" className="convo-image-thumb" /> : c.image !== null && <StoredThumb id={c.image.thumbId} />}
              <span className="convo-image-name">{c.name}</span>
              {c.image === null && <span className="convo-image-status">Uploading…</span>}
              <button type="button" className="button icon-button" aria-label={`Remove image ${c.name}`} onClick={() => props.onRemove(c)}>
                <X aria-hidden size={14} />
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** SentImages shows a sent message's images in the transcript, from their stored small copies. */
export function SentImages(props: { images: ImageRef[] }) {
  if (props.images.length === 0) return null;
  return (
    <ul className="convo-image-chips convo-sent-images" aria-label="Images">
      {props.images.map((im) => (
        <li key={im.artifactId}>
          <Thumb image={im} />
        </li>
      ))}
    </ul>
  );
}

/** StoredThumb is a chip's thumbnail read from the store (an image brought back from the queue). */
function StoredThumb({ id }: { id: string }) {
  const transport = useTransport();
  const api = useApi();
  const sessionId = useSession((s) => s.sessionId);
  const load = useLoad(() => loadArtifact(transport, api, sessionId, id), [transport, api, sessionId, id]);
  if (load.state.status !== "ready" || load.state.value.kind !== "image") return null;
  return <img src={load.state.value.url} alt="" className="convo-image-thumb" />;
}

function Thumb({ image }: { image: ImageRef }) {
  const transport = useTransport();
  const api = useApi();
  const sessionId = useSession((s) => s.sessionId);
  const load = useLoad(() => loadArtifact(transport, api, sessionId, image.thumbId), [transport, api, sessionId, image.thumbId]);
  const label = `${image.name} (${image.width}×${image.height}, ${megabytes(image.size)})`;
  if (load.state.status === "error") {
    return (
      <span className="convo-card-note" role="alert">
        {label} could not be shown ({load.state.error.message}).
      </span>
    );
  }
  if (load.state.status !== "ready" || load.state.value.kind !== "image") return <span className="convo-card-note">{label}</span>;
  return <img className="convo-image-thumb convo-sent-thumb" src={load.state.value.url} alt={`Image ${image.name}`} title={label} />;
}
