package tests

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"foya/backend/api"
	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/llm"
	pt "foya/backend/provider/providertest"
)

// untitled makes a session the user gave no title.
func untitled(t *testing.T, h *harness) kernel.Session {
	t.Helper()
	s, err := h.k.CreateSession(context.Background(), kernel.NewSession{Workdir: h.dir, ApprovalMode: "auto", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Title != kernel.DefaultTitle || s.TitleByUser {
		t.Fatalf("a new session without a title is %q (by user %v); want %q, not the user's", s.Title, s.TitleByUser, kernel.DefaultTitle)
	}
	return s
}

// runStartTitle is the title the run.start event of runID told.
func runStartTitle(t *testing.T, h *harness, runID string) string {
	t.Helper()
	for _, ev := range h.eventList() {
		if ev.Type == event.TypeRunStart && ev.RunID == runID {
			var d event.RunStartData
			decodeData(t, ev, &d)
			return d.Title
		}
	}
	t.Fatalf("no run.start of run %s", runID)
	return ""
}

func decodeData(t *testing.T, ev llm.Event, v any) {
	t.Helper()
	if err := json.Unmarshal(ev.Data, v); err != nil {
		t.Fatalf("%s: %v", ev.Type, err)
	}
}

// A session the user named none for takes its first prompt's first line as
// its title when its first run starts, told by that run's run.start; a
// second run leaves it.
func TestSessionTitleFromFirstPrompt(t *testing.T) {
	h := newHarness(t, nil, pt.Say("one"), pt.Say("two"))
	s := untitled(t, h)
	r := h.runIn(context.Background(), s.ID, "  Fix the   failing\ttest in store  \nand then run it all")
	got, err := h.k.Session(context.Background(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Fix the failing test in store"; got.Title != want || got.TitleByUser {
		t.Fatalf("title after the first run = %q (by user %v); want %q, not the user's", got.Title, got.TitleByUser, want)
	}
	if told := runStartTitle(t, h, r.ID); told != got.Title {
		t.Errorf("run.start told the title %q; want %q", told, got.Title)
	}
	r2 := h.runIn(context.Background(), s.ID, "Something else entirely")
	if got, _ := h.k.Session(context.Background(), s.ID); got.Title != "Fix the failing test in store" {
		t.Errorf("title after the second run = %q; want the first prompt's", got.Title)
	}
	if told := runStartTitle(t, h, r2.ID); told != "" {
		t.Errorf("the second run's run.start told a title, %q; want none", told)
	}
}

// A title the user gave, at creation or by renaming before the first run,
// is never replaced by the prompt's.
func TestSessionTitleNotOverwrittenAfterRename(t *testing.T) {
	h := newHarness(t, nil, pt.Say("one"), pt.Say("two"))
	svc := panelService(h)
	s := untitled(t, h)
	name := "My refactor"
	renamed, err := svc.UpdateSession(s.ID, api.SessionPatch{Title: &name})
	if err != nil {
		t.Fatal(err)
	}
	if !renamed.TitleByUser {
		t.Fatalf("a renamed session's title is not marked the user's")
	}
	r := h.runIn(context.Background(), s.ID, "Fix the failing test")
	if got, _ := h.k.Session(context.Background(), s.ID); got.Title != name {
		t.Errorf("title after the first run = %q; want the user's %q", got.Title, name)
	}
	if told := runStartTitle(t, h, r.ID); told != "" {
		t.Errorf("run.start told the title %q of a session the user named", told)
	}

	given := h.session("auto") // created with the title "test"
	h.runIn(context.Background(), given.ID, "Fix the failing test")
	if got, _ := h.k.Session(context.Background(), given.ID); got.Title != "test" || !got.TitleByUser {
		t.Errorf("a title given at creation became %q (by user %v); want %q", got.Title, got.TitleByUser, "test")
	}
}

// Prompts with nothing to show, very long ones and ones with control
// characters make a title that is clean and short, or none.
func TestSessionTitleOfOddPrompts(t *testing.T) {
	long := strings.Repeat("word ", 2000) // 10,000 characters
	cases := []struct {
		name, prompt, want string
	}{
		{"newlines first", "\n\n  \r\n  Rename the package\nsecond line", "Rename the package"},
		{"control characters", "Fix\x00the\x1b[31m bug\u200b now\x7f", "Fix the [31m bug now"},
		{"long", long, strings.Repeat("word ", 11) + "word…"},
		{"one long word", strings.Repeat("x", 10000), strings.Repeat("x", 60) + "…"},
		{"only controls", "\x01\x02\n\x03", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := kernel.PromptTitle(c.prompt)
			if got != c.want {
				t.Errorf("PromptTitle(%.40q) = %q; want %q", c.prompt, got, c.want)
			}
			if n := utf8.RuneCountInString(got); n > 61 {
				t.Errorf("PromptTitle(%.40q) has %d characters; want at most 61", c.prompt, n)
			}
		})
	}

	t.Run("through the kernel", func(t *testing.T) {
		h := newHarness(t, nil, pt.Say("one"), pt.Say("two"))
		s := untitled(t, h)
		// A prompt of only white space starts no run and leaves the title.
		if _, err := h.k.Run(context.Background(), kernel.RunOptions{SessionID: s.ID, Prompt: " \n\t ", Model: h.model()}); err == nil {
			t.Fatal("a prompt of only white space started a run")
		}
		if got, _ := h.k.Session(context.Background(), s.ID); got.Title != kernel.DefaultTitle {
			t.Errorf("after a refused blank prompt the title is %q; want %q", got.Title, kernel.DefaultTitle)
		}
		// A prompt with nothing to show keeps the default title.
		h.runIn(context.Background(), s.ID, "\x01\x02")
		if got, _ := h.k.Session(context.Background(), s.ID); got.Title != kernel.DefaultTitle {
			t.Errorf("after a prompt of control characters the title is %q; want %q", got.Title, kernel.DefaultTitle)
		}
		s2 := untitled(t, h)
		h.runIn(context.Background(), s2.ID, long)
		got, _ := h.k.Session(context.Background(), s2.ID)
		if want := kernel.PromptTitle(long); got.Title != want {
			t.Errorf("after a 10,000-character prompt the title is %q; want %q", got.Title, want)
		}
	})
}
