// The model's text as markdown: GitHub's flavour, raw HTML never parsed,
// the tree sanitized (rehype-sanitize's default schema, GitHub's), URLs of
// unsafe schemes dropped (react-markdown's urlTransform), code blocks
// highlighted once their language's grammar has loaded.
import { memo, useDeferredValue, useEffect, useState, type ReactNode } from "react";
import Markdown, { type Components } from "react-markdown";
import rehypeSanitize from "rehype-sanitize";
import remarkGfm from "remark-gfm";
import type { Element, ElementContent, Root } from "hast";
import { CopyButton } from "../../ui/CopyButton";
import { highlighted, languageOf, loadLanguage } from "./highlight";

/**
 * ModelText renders markdown from the model; it is re-parsed only when text
 * changes. Parsing is a deferred render (useDeferredValue): a row that
 * mounts shows the plain text in its first frame and its markdown once
 * React gets to it, between other work, so opening a long session (many
 * rows mounting at once) does not parse every visible step's text in one
 * task.
 */
export const ModelText = memo(function ModelText(props: { text: string }) {
  const text = useDeferredValue(props.text, null);
  if (text === null) {
    return (
      <div className="convo-md">
        <p>{props.text}</p>
      </div>
    );
  }
  return <Parsed text={text} />;
});

const Parsed = memo(function Parsed(props: { text: string }) {
  return (
    <div className="convo-md">
      <Markdown remarkPlugins={[remarkGfm]} rehypePlugins={[rehypeSanitize]} components={components}>
        {props.text}
      </Markdown>
    </div>
  );
});

const components: Components = {
  pre({ node }) {
    const code = node?.children[0];
    if (code === undefined || code.type !== "element" || code.tagName !== "code") {
      return <pre className="convo-code">{textOf(node)}</pre>;
    }
    const cls = code.properties.className;
    const first = Array.isArray(cls) ? String(cls.find((c) => String(c).startsWith("language-")) ?? "") : "";
    return <CodeBlock code={textOf(code).replace(/\n$/, "")} lang={first.replace(/^language-/, "")} />;
  },
  a({ href, children }) {
    // Opened outside the app: the conversation must stay where it is.
    return (
      <a href={href} target="_blank" rel="noreferrer noopener">
        {children}
      </a>
    );
  },
};

/** CodeBlock is a fenced block, highlighted when its language is one we load. */
export function CodeBlock(props: { code: string; lang: string }) {
  const name = languageOf(props.lang);
  const [, setLoaded] = useState(0);
  useEffect(() => {
    if (name === "") return;
    let live = true;
    loadLanguage(name).then(
      () => live && setLoaded((n) => n + 1),
      // Without the grammar the block stays plain text, which is still correct.
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [name]);
  const tree = highlighted(props.code, name);
  return (
    <div className="convo-code-block">
      <CopyButton text={props.code} label="Copy code" className="convo-code-copy" />
      <pre className="convo-code" data-language={props.lang || undefined}>
        <code>{tree === null ? props.code : tree.children.map(toReact)}</code>
      </pre>
    </div>
  );
}

function toReact(n: Root["children"][number] | ElementContent, i: number): ReactNode {
  if (n.type === "text") return n.value;
  if (n.type !== "element") return null;
  const cls = n.properties.className;
  return (
    <span key={i} className={Array.isArray(cls) ? cls.join(" ") : undefined}>
      {n.children.map(toReact)}
    </span>
  );
}

function textOf(n: Element | Root | ElementContent | undefined): string {
  if (n === undefined) return "";
  if (n.type === "text") return n.value;
  if (n.type === "element" || n.type === "root") return n.children.map((c) => textOf(c as ElementContent)).join("");
  return "";
}
