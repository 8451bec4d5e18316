// Images pasted or dropped into the composer: the chip row (thumbnail,
// keyboard removal, refusals in words, the note for a model that takes no
// images), the message sent with them, and the transcript's thumbnails.
import { cleanup, fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { ApiError } from "../../backend";
import type { PastedImage } from "../../backend/gen/kernel";
import { Log } from "../eventstest";
import { megabytes, sniff, tooBig } from "./images";
import { mountConversation as mount } from "./mounttest";

afterEach(cleanup);

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);

function png(name: string, size?: number): File {
  const f = new File([PNG], name, { type: "image/png" });
  if (size !== undefined) Object.defineProperty(f, "size", { value: size });
  return f;
}

const stored: PastedImage = { id: "art_1", thumbId: "art_1t", name: "shot.png", mime: "image/png", size: 16, width: 2, height: 2 };

function done(): Log {
  const log = new Log();
  log.runStart("run_1", "Hello");
  log.runEnd("run_1", "completed");
  return log;
}

const box = () => screen.getByRole("textbox", { name: "Message" }) as HTMLTextAreaElement;
const paste = (...files: File[]) => fireEvent.paste(box(), { clipboardData: { files, types: ["Files"] } });

describe("image checks (pure)", () => {
  it("sniffs the content, not the name", () => {
    expect(sniff(PNG)).toBe("image/png");
    expect(sniff(new Uint8Array([0xff, 0xd8, 0xff, 0xe0]))).toBe("image/jpeg");
    expect(sniff(new TextEncoder().encode("GIF89a...."))).toBe("image/gif");
    expect(sniff(new TextEncoder().encode("RIFF\0\0\0\0WEBPVP8 "))).toBe("image/webp");
    expect(sniff(new TextEncoder().encode("hello, not a picture"))).toBeNull();
  });
  it("names the size and the limit", () => {
    expect(tooBig("screenshot.png", 52_300_000)).toContain("screenshot.png is 52.3 MB; images are limited to 50 MB");
    expect(tooBig("edge.png", 50_000_001)).toContain("edge.png is 50000001 bytes");
    expect(tooBig("ok.png", 50_000_000)).toBeNull();
    expect(megabytes(50_000_000)).toBe("50 MB");
  });
});

describe("the composer's images", () => {
  it("shows a pasted image as a chip, removed by Delete, and sends the stored ones", async () => {
    const { t } = await mount(done().events, { replies: { AddImage: stored, ImageInput: true, RunWithImages: "run_2" } });
    paste(png("shot.png"));
    const remove = await screen.findByRole("button", { name: "Remove image shot.png" });
    await waitFor(() => expect(t.callsOf("AddImage")).toBe(1));
    const added = t.calls.find((c) => c.method === "AddImage")!.args;
    expect(added[1]).toBe("shot.png");
    expect(added[2]).toBe(btoa(String.fromCharCode(...PNG)));
    const chip = remove.closest("li")!;
    expect(chip.tabIndex).toBe(0);
    await waitFor(() => expect(chip.getAttribute("aria-busy")).toBe("false"));
    expect(screen.queryByRole("note")).toBeNull(); // the model takes images

    chip.focus();
    await userEvent.keyboard("{Delete}");
    expect(screen.queryByRole("button", { name: "Remove image shot.png" })).toBeNull();

    paste(png("shot.png"));
    await waitFor(() => expect(screen.getByRole("listitem", { name: /shot\.png/ }).getAttribute("aria-busy")).toBe("false"));
    await userEvent.type(box(), "what is this?{Enter}");
    await waitFor(() => expect(t.callsOf("RunWithImages")).toBe(1));
    const sent = t.calls.find((c) => c.method === "RunWithImages")!.args;
    expect(sent[1]).toBe("what is this?");
    expect(sent[4]).toEqual([stored]);
    await waitFor(() => expect(screen.queryByRole("list", { name: "Attached images" })).toBeNull());
  });

  it("refuses a file that is not an image, and one over 50 MB, in words, uploading neither", async () => {
    const { t } = await mount(done().events, { replies: { AddImage: stored, ImageInput: true } });
    paste(new File(["these are notes, not a picture"], "notes.png", { type: "image/png" }), png("screenshot.png", 52_300_000));
    const alerts = await screen.findAllByRole("alert");
    const text = alerts.map((a) => a.textContent).join("\n");
    expect(text).toContain("notes.png is not an image");
    expect(text).toContain("screenshot.png is 52.3 MB; images are limited to 50 MB");
    expect(t.callsOf("AddImage")).toBe(0);
    expect(screen.queryByRole("list", { name: "Attached images" })).toBeNull();
  });

  it("keeps at most 10 images and says which were left out", async () => {
    const { t } = await mount(done().events, { replies: { AddImage: stored, ImageInput: true } });
    paste(...Array.from({ length: 11 }, (_, i) => png(`p${i}.png`)));
    expect((await screen.findByRole("alert")).textContent).toContain("at most 10 images: p10.png left out");
    await waitFor(() => expect(t.callsOf("AddImage")).toBe(10));
    expect(within(screen.getByRole("list", { name: "Attached images" })).getAllByRole("listitem")).toHaveLength(10);
  });

  it("takes images dropped anywhere in the window, not only on the composer", async () => {
    const { t } = await mount(done().events, { replies: { AddImage: stored, ImageInput: true } });
    fireEvent.drop(document.body, { dataTransfer: { files: [png("dropped.png")], types: ["Files"] } });
    await screen.findByRole("button", { name: "Remove image dropped.png" });
    await waitFor(() => expect(t.callsOf("AddImage")).toBe(1));
  });

  it("queues a message with its images while a run goes, and Edit brings them back as chips", async () => {
    const log = new Log();
    log.runStart("run_1", "Hello");
    await mount(log.events, { replies: { AddImage: stored, ImageInput: true, Artifact: { id: "art_1t", mime: "image/png", size: 8, width: 2, height: 2, data: "iVBORw0KGgo=" } } });
    paste(png("shot.png"));
    await waitFor(() => expect(screen.getByRole("listitem", { name: /shot\.png/ }).getAttribute("aria-busy")).toBe("false"));
    await userEvent.type(box(), "and this{Enter}");
    await screen.findByText("Queued: and this");
    expect(screen.queryByRole("list", { name: "Attached images" })).toBeNull();
    await userEvent.click(screen.getByRole("button", { name: "Edit" }));
    await screen.findByRole("button", { name: "Remove image shot.png" });
    expect(box().value).toBe("and this");
  });

  it("says the kernel's refusal and drops the chip", async () => {
    const refused = new ApiError("invalid", "shot.png is not an image Foya can send (its content is text)");
    await mount(done().events, { replies: { AddImage: refused, ImageInput: true } });
    paste(png("shot.png"));
    expect((await screen.findByRole("alert")).textContent).toContain("its content is text");
    await waitFor(() => expect(screen.queryByRole("button", { name: "Remove image shot.png" })).toBeNull());
  });

  it("says before sending that a model without image input is not sent the images", async () => {
    await mount(done().events, { replies: { AddImage: stored, ImageInput: false } });
    paste(png("shot.png"));
    const note = await screen.findByRole("note");
    expect(note.textContent).toContain("m does not take images");
    expect(note.textContent).toContain("not sent to the model");
  });

  it("shows a sent message's images in the transcript from their small copies", async () => {
    const log = new Log();
    log.add(
      "run.start",
      { prompt: "look", workdir: "/w", model: "m", provider: "local", approvalMode: "auto", images: [{ artifactId: "art_1", thumbId: "art_1t", name: "shot.png", mime: "image/png", size: 16, width: 2, height: 2 }] },
      "run_1",
    );
    const { t } = await mount(log.events, { replies: { Artifact: { id: "art_1t", mime: "image/png", size: 8, width: 2, height: 2, data: "iVBORw0KGgo=" } } });
    const img = await screen.findByRole("img", { name: "Image shot.png" });
    expect(img.getAttribute("src")).toMatch(/^blob:/);
    expect(t.calls.find((c) => c.method === "Artifact")!.args[1]).toBe("art_1t");
  });
});
