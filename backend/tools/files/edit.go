package files

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strings"

	"foya/backend/tools"
)

//go:embed tool_edit.md
var editDescription string

type editTool struct{ e *env }

func (editTool) Spec() tools.Spec {
	return tools.Spec{
		Name:        EditName,
		Description: strings.TrimSpace(editDescription),
		Exposure:    tools.Direct,
		Schema:      editSchema,
	}
}

// ParallelSafe implements tools.Parallel: edits are never parallel (spec P5).
func (editTool) ParallelSafe(tools.Call) bool { return false }

// replacement is one old_string → new_string edit.
type replacement struct {
	Old *string `json:"old_string" jsonschema:"required"`
	New *string `json:"new_string" jsonschema:"required"`
	All bool    `json:"replace_all"`
}

type editArgs struct {
	Path  string        `json:"path" jsonschema:"required"`
	Old   *string       `json:"old_string"`
	New   *string       `json:"new_string"`
	All   *bool         `json:"replace_all"`
	Edits []replacement `json:"edits" jsonschema:"minItems=1" jsonschema_description:"Instead of old_string and new_string."`
}

var editSchema = tools.SchemaOf[editArgs]()

func (t editTool) Run(ctx context.Context, rc *tools.RunContext, call tools.Call) (tools.Result, error) {
	var a editArgs
	if err := tools.Decode(call, &a); err != nil {
		return tools.Errorf("edit: %v", err), nil
	}
	var edits []replacement
	switch {
	case a.Edits != nil && (a.Old != nil || a.New != nil || a.All != nil):
		return tools.Errorf("edit: give either old_string and new_string, or edits: [...], not both"), nil
	case a.Edits != nil:
		if len(a.Edits) == 0 {
			return tools.Errorf("edit: edits is empty: give at least one {old_string, new_string}"), nil
		}
		edits = a.Edits
	case a.Old == nil || a.New == nil:
		return tools.Errorf("edit: give old_string and new_string (or edits: [...])"), nil
	default:
		edits = []replacement{{Old: a.Old, New: a.New, All: a.All != nil && *a.All}}
	}
	for i, e := range edits {
		n := ""
		if len(edits) > 1 {
			n = fmt.Sprintf(" of edit %d", i+1)
		}
		switch {
		case e.Old == nil || e.New == nil:
			return tools.Errorf("edit: edit %d needs old_string and new_string", i+1), nil
		case *e.Old == "":
			return tools.Errorf("edit: old_string%s is empty: give the exact text to replace (to create a file, use write)", n), nil
		case *e.Old == *e.New:
			return tools.Errorf("edit: old_string and new_string%s are the same: nothing would change", n), nil
		}
	}
	sid, dir := sessionOf(rc)
	tg, err := resolve(dir, a.Path, true)
	if err != nil {
		return tools.Errorf("edit: %v", err), nil
	}
	defer tg.close()
	if msg := t.e.fence(rc).writeRefusal(EditName, tg.Real); msg != "" {
		return tools.Errorf("%s", msg), nil
	}
	before, err := snapshot(tg.loc(), MaxKeep)
	switch {
	case errors.Is(err, errTooLarge):
		return tools.Errorf("edit: %s is %s, more than the %s edit changes; nothing was changed", tg.Show(), Size(before.Size), Size(MaxKeep)), nil
	case err != nil:
		return tools.Errorf("edit: %s", openError(tg.Show(), err)), nil
	case !before.Exists:
		return tools.Errorf("edit: %s does not exist (check the path with ls or glob; to create a file, use write)", tg.Show()), nil
	case before.IsDir:
		return tools.Errorf("edit: %s is a folder, not a file", tg.Show()), nil
	case before.Link:
		return tools.Errorf("edit: %s is a symbolic link to %s, which does not exist", tg.Show(), before.Data), nil
	}
	rec, found, err := t.e.reads.GetRead(ctx, sid, tg.Real)
	if err != nil {
		return tools.Result{}, fmt.Errorf("edit: %w", err)
	}
	if msg := staleness(rec, found, before, tg.Show(), "edit"); msg != "" {
		return tools.Errorf("%s", msg), nil
	}
	if isBinary(before.Data) {
		return tools.Errorf("edit: %s is a binary file; edit changes text only", tg.Show()), nil
	}
	content := string(before.Data)
	total := 0
	for i, e := range edits {
		next, n, msg := replace(content, *e.Old, *e.New, e.All)
		if msg != "" {
			which := ""
			if len(edits) > 1 {
				which = fmt.Sprintf(" (edit %d of %d; no edit was applied)", i+1, len(edits))
			}
			return tools.Errorf("edit: %s%s: %s", tg.Show(), which, msg), nil
		}
		content, total = next, total+n
	}
	if content == string(before.Data) {
		return tools.Errorf("edit: the edits leave %s as it was; nothing was changed", tg.Show()), nil
	}
	after := state{Exists: true, Mode: before.Mode, Data: []byte(content), SHA: digest([]byte(content)), Size: int64(len(content))}
	change := makeChange("edit", tg.Real, tg.Workdir, before, after)
	why := fmt.Sprintf("edit %s (+%d -%d lines)", tg.Show(), change.Added, change.Removed)
	if res, err := ask(ctx, rc, call, writeKind(tg), why, change.Diff, tg.Real); res != nil || err != nil {
		return deref(res), err
	}
	note := ""
	if res, _ := t.e.commit(ctx, rc, sid, tg, before, &after, "edit"); res != nil {
		if res.IsError {
			return *res, nil
		}
		note = " " + res.Text
	}
	change.ModeAfter = after.Mode
	text := fmt.Sprintf("Edited %s: %s (+%d -%d lines).", tg.Show(), plural(total, "replacement", "replacements"), change.Added, change.Removed)
	return tools.Result{Text: text + note, FileChanges: []tools.FileChange{change}, DisplayDiff: change.Diff}, nil
}

// replace replaces old with new in content: exactly one occurrence, or all
// of them with all. When old is not found as given but the file has CRLF
// line endings, old and new are tried with CRLF endings. It returns the
// new content and the number of replacements, or a message for the model.
func replace(content, old, new string, all bool) (string, int, string) {
	n := strings.Count(content, old)
	if n == 0 && strings.Contains(content, "\r\n") && strings.Contains(old, "\n") && !strings.Contains(old, "\r\n") {
		crOld := strings.ReplaceAll(old, "\n", "\r\n")
		if c := strings.Count(content, crOld); c > 0 {
			old, new, n = crOld, strings.ReplaceAll(strings.ReplaceAll(new, "\r\n", "\n"), "\n", "\r\n"), c
		}
	}
	switch {
	case n == 0:
		return "", 0, notFound(content, old)
	case n > 1 && !all:
		return "", 0, fmt.Sprintf("old_string occurs %d times (at lines %s); it must occur exactly once: add some of the surrounding lines to old_string to pick one, or set replace_all to replace every one",
			n, lineList(occurrences(content, old)))
	case all:
		return strings.ReplaceAll(content, old, new), n, ""
	}
	return strings.Replace(content, old, new, 1), 1, ""
}

// occurrences returns the line numbers where old starts in content.
func occurrences(content, old string) []int {
	var out []int
	line, from := 1, 0
	for {
		i := strings.Index(content[from:], old)
		if i < 0 {
			return out
		}
		line += strings.Count(content[from:from+i], "\n")
		out = append(out, line)
		line += strings.Count(old, "\n")
		from += i + len(old)
	}
}

func lineList(ns []int) string {
	var parts []string
	for i, n := range ns {
		if i == 10 {
			parts = append(parts, fmt.Sprintf("and %d more", len(ns)-10))
			break
		}
		parts = append(parts, fmt.Sprint(n))
	}
	return strings.Join(parts, ", ")
}

// notFound explains a failed match: which lines of content come closest
// to old_string's first line, and whether only whitespace differs.
func notFound(content, old string) string {
	first := ""
	for _, l := range strings.Split(old, "\n") {
		if strings.TrimSpace(l) != "" {
			first = strings.TrimSpace(l)
			break
		}
	}
	msg := "old_string was not found; it must match the file exactly, including whitespace, indentation and line breaks."
	if first == "" {
		return msg + " (old_string has only whitespace.)"
	}
	if squash(content) != "" && strings.Contains(squash(content), squash(old)) {
		msg += " The text is there with different whitespace or indentation."
	}
	lines := strings.Split(content, "\n")
	type cand struct {
		no    int
		score float64
	}
	var cands []cand
	want := bigrams(strings.ToLower(first))
	for i, l := range lines {
		t := strings.TrimSpace(strings.TrimSuffix(l, "\r"))
		if t == "" {
			continue
		}
		s := 0.0
		if t == first {
			s = 2
		} else {
			s = dice(want, strings.ToLower(t))
		}
		if s >= 0.5 {
			cands = append(cands, cand{i + 1, s})
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return a.no - b.no
	})
	if len(cands) == 0 {
		return msg + " No line resembles its first line: read the file and copy the text exactly."
	}
	if len(cands) > 3 {
		cands = cands[:3]
	}
	var b strings.Builder
	b.WriteString(msg + " The lines closest to its first line are:")
	for _, c := range cands {
		text := strings.TrimSuffix(lines[c.no-1], "\r")
		if len(text) > 200 {
			text = string(cutUTF8([]byte(text[:200]))) + "…"
		}
		fmt.Fprintf(&b, "\n%d:%s", c.no, text)
	}
	b.WriteString("\nRead the file around them and copy the text exactly (without the line numbers and their colon).")
	return b.String()
}

// squash removes all whitespace.
func squash(s string) string {
	return strings.Join(strings.Fields(s), "")
}

// bigrams counts the two-byte pieces of s.
func bigrams(s string) map[string]int {
	m := map[string]int{}
	for i := 0; i+2 <= len(s); i++ {
		m[s[i:i+2]]++
	}
	return m
}

// dice is the Sørensen–Dice similarity of two strings' bigrams, in [0, 1].
func dice(want map[string]int, s string) float64 {
	total := 0
	for _, n := range want {
		total += n
	}
	have := bigrams(s)
	common, hn := 0, 0
	for g, n := range have {
		hn += n
		common += min(n, want[g])
	}
	if total+hn == 0 {
		return 0
	}
	return 2 * float64(common) / float64(total+hn)
}

var (
	_ tools.Tool     = editTool{}
	_ tools.Parallel = editTool{}
)
