package tools

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
)

// spec: E2 — tool_search finds deferred tools by their description too,
// not only by name: a query whose every word appears only in a
// description activates that tool, a four-letter prefix of a description
// word counts, and a name match still ranks before a description match.
// (Without this test, a search that matched names only passed every test.)
func TestSearchMatchesDescriptions(t *testing.T) {
	cands := []Spec{
		{Name: "browser_screenshot", Description: "Take a screenshot of a web page."},
		{Name: "db_query", Description: "Run a read-only SQL query against the project database."},
		{Name: "pdf_render", Description: "Render a chart or a report as PDF."},
		{Name: "chart", Description: "Draw bars."},
		{Name: "weather", Description: "Forecast for a city."},
	}
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"sql database", []string{"db_query"}},                         // only db_query's description has these
		{"forecast", []string{"weather"}},                              // one word, description only
		{"databa", []string{"db_query"}},                               // a prefix of a description word
		{"chart", []string{"chart", "pdf_render"}},                     // the name first, then the description
		{"city screenshot", []string{"browser_screenshot", "weather"}}, // name part 30 beats description 5
	} {
		a := &activator{cands: cands}
		args, _ := json.Marshal(map[string]string{"query": c.query})
		res, err := Search{}.Run(context.Background(), &RunContext{Activator: a}, Call{Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("tool_search %q: %v %+v", c.query, err, res)
		}
		if !slices.Equal(a.activated, c.want) {
			t.Errorf("tool_search %q activated %v; want %v", c.query, a.activated, c.want)
		}
	}
}
