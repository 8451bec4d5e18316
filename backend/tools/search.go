package tools

import (
	"context"
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"unicode"
)

//go:embed tool_search.md
var searchDescription string

// SearchName is the name of the built-in tool_search tool.
const SearchName = "tool_search"

// Search is the built-in tool_search (spec E2): a ranked search over the
// deferred tools' names and descriptions that activates the matches for the
// rest of the turn, from the next step on.
type Search struct{}

// Spec implements Tool.
func (Search) Spec() Spec {
	return Spec{
		Name:        SearchName,
		Description: strings.TrimSpace(searchDescription),
		Exposure:    Direct,
		ReadOnly:    true,
		Schema:      searchSchema,
	}
}

// maxSearchLimit is the most tools one search activates, as the schema says.
const maxSearchLimit = 20

// searchArgs are tool_search's arguments.
type searchArgs struct {
	Query string `json:"query" jsonschema:"required" jsonschema_description:"Keywords describing the capability you need."`
	Limit *int   `json:"limit" jsonschema:"minimum=1,maximum=20" jsonschema_description:"Most tools to activate (default 5)."`
}

var searchSchema = SchemaOf[searchArgs]()

// Offered implements Gate: tool_search is offered only while there is
// something to find.
func (Search) Offered(s State) bool { return s.Deferred > 0 }

// SearchActivator is what tool_search needs from the engine: the deferred
// tools this turn may still activate, and the activation itself.
type SearchActivator interface {
	Activator
	Candidates() []Spec
}

// Run implements Tool.
func (Search) Run(ctx context.Context, rc *RunContext, call Call) (Result, error) {
	var args searchArgs
	if err := Decode(call, &args); err != nil {
		return Errorf("tool_search: %v", err), nil
	}
	limit := 5
	if args.Limit != nil {
		if *args.Limit < 1 || *args.Limit > maxSearchLimit {
			return Errorf("tool_search: limit is %d; give 1 to %d, or leave it out for 5", *args.Limit, maxSearchLimit), nil
		}
		limit = *args.Limit
	}
	words := terms(args.Query)
	if len(words) == 0 {
		return Errorf("tool_search: query is empty: give a few keywords describing the tool you need"), nil
	}
	act, ok := rc.Activator.(SearchActivator)
	if !ok {
		return Errorf("tool_search: no deferred tools in this session"), nil
	}
	hits := Rank(act.Candidates(), words)
	if len(hits) == 0 {
		return Text(fmt.Sprintf("No additional tool matches %q. Try other keywords, or go on with the tools you have.", args.Query)), nil
	}
	if len(hits) > limit {
		hits = hits[:limit]
	}
	names := make([]string, len(hits))
	var b strings.Builder
	b.WriteString("Activated these tools; you can call them from your next step on, until this turn ends:\n")
	for i, s := range hits {
		names[i] = s.Name
		fmt.Fprintf(&b, "- %s: %s\n", s.Name, firstLine(s.Description))
	}
	act.Activate(names...)
	return Text(strings.TrimRight(b.String(), "\n")), nil
}

// ParallelSafe implements Parallel: searching changes only the turn's
// activation set, which takes effect at the next step anyway.
func (Search) ParallelSafe(Call) bool { return true }

// Rank orders candidate specs by how well they match the query terms: a term
// equal to the name or a part of it weighs most, then a term in the name,
// then in the description. Specs matching nothing are dropped. Ties keep
// name order, so results are deterministic.
func Rank(specs []Spec, words []string) []Spec {
	type scored struct {
		spec  Spec
		score int
	}
	var out []scored
	for _, s := range specs {
		name := strings.ToLower(s.Name)
		nameParts := terms(s.Name)
		desc := terms(s.Description)
		score := 0
		for _, w := range words {
			switch {
			case w == name:
				score += 100
			case slices.Contains(nameParts, w):
				score += 30
			case strings.Contains(name, w):
				score += 15
			}
			for _, d := range desc {
				if d == w {
					score += 5
				} else if len(w) >= 4 && strings.HasPrefix(d, w) {
					score += 2
				}
			}
		}
		if score > 0 {
			out = append(out, scored{s, score})
		}
	}
	slices.SortStableFunc(out, func(a, b scored) int { return b.score - a.score })
	specs = make([]Spec, len(out))
	for i, o := range out {
		specs[i] = o.spec
	}
	return specs
}

// terms splits text into lower-case words at anything that is not a letter
// or digit (so "read_file" gives "read" and "file").
func terms(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

var (
	_ Tool     = Search{}
	_ Gate     = Search{}
	_ Parallel = Search{}
)
