// Vitest setup: Testing Library's waits (findBy*, waitFor) give up after 1 s
// by default, which a loaded 2-core CI machine can exceed while React
// renders (5 s was exceeded once right after the Go suite); they still fail
// on a real bug, only later.
import { configure } from "@testing-library/react";

configure({ asyncUtilTimeout: 15000 });
