import { useCallback, useLayoutEffect, useRef, useState } from "react";

/** nearEnd is how close to the end (px) counts as at the end: following. */
const nearEnd = 8;

/**
 * useFollowTail keeps a scrolling element at the end of its content as the
 * content grows, until the person scrolls up: then it stays where they
 * left it, `following` is false (a view offers "Jump to latest"), and it
 * follows again once they scroll back to the end or jump. content is what
 * the element shows; a new one is followed after it renders.
 */
export function useFollowTail<T extends HTMLElement>(content: unknown) {
  const ref = useRef<T | null>(null);
  const follow = useRef(true);
  const [following, setFollowing] = useState(true);
  useLayoutEffect(() => {
    const el = ref.current;
    if (el !== null && follow.current) el.scrollTop = el.scrollHeight;
  }, [content]);
  const onScroll = useCallback(() => {
    const el = ref.current;
    if (el === null) return;
    follow.current = el.scrollHeight - el.clientHeight - el.scrollTop <= nearEnd;
    setFollowing(follow.current);
  }, []);
  const jump = useCallback(() => {
    follow.current = true;
    setFollowing(true);
    const el = ref.current;
    if (el !== null) el.scrollTop = el.scrollHeight;
  }, []);
  return { ref, following, onScroll, jump };
}
