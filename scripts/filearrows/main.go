// Command filearrows counts the arrows between the files of one Go
// package: file A points to file B when code in A uses something declared
// in B (a function, method, type, variable, constant or field). It prints
// the files, the arrows, and how many of them point back up: arrows
// inside a cycle of files (a strongly connected component), which a reader
// cannot follow in one direction.
//
//	go run ./scripts/filearrows ./backend/kernel
package main

import (
	"fmt"
	"go/ast"
	"go/types"
	"os"
	"path/filepath"
	"sort"

	"golang.org/x/tools/go/packages"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: filearrows PACKAGE")
		os.Exit(2)
	}
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo}
	pkgs, err := packages.Load(cfg, os.Args[1])
	if err != nil || len(pkgs) != 1 || len(pkgs[0].Errors) > 0 {
		fmt.Fprintf(os.Stderr, "load %s: %v %v\n", os.Args[1], err, pkgs)
		os.Exit(1)
	}
	p := pkgs[0]
	fileOf := func(obj types.Object) string {
		if obj == nil || obj.Pkg() != p.Types || !obj.Pos().IsValid() {
			return ""
		}
		return filepath.Base(p.Fset.Position(obj.Pos()).Filename)
	}
	edges := map[[2]string]bool{}
	files := map[string]bool{}
	for _, f := range p.Syntax {
		from := filepath.Base(p.Fset.Position(f.Pos()).Filename)
		files[from] = true
		ast.Inspect(f, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			obj := p.TypesInfo.Uses[id]
			if v, ok := obj.(*types.Var); ok && !v.IsField() && v.Parent() != p.Types.Scope() {
				return true // a local variable
			}
			if to := fileOf(obj); to != "" && to != from {
				edges[[2]string{from, to}] = true
			}
			return true
		})
	}
	scc := components(files, edges)
	back := 0
	for e := range edges {
		if scc[e[0]] == scc[e[1]] {
			back++
		}
	}
	lines := 0
	for _, f := range p.GoFiles {
		b, _ := os.ReadFile(f)
		for _, c := range b {
			if c == '\n' {
				lines++
			}
		}
	}
	fmt.Printf("%s: %d files, %d lines, %d arrows between files, %d of them in cycles\n", p.PkgPath, len(files), lines, len(edges), back)
}

// components numbers the strongly connected components (Tarjan).
func components(nodes map[string]bool, edges map[[2]string]bool) map[string]int {
	out := map[string][]string{}
	for e := range edges {
		out[e[0]] = append(out[e[0]], e[1])
	}
	var names []string
	for n := range nodes {
		names = append(names, n)
	}
	sort.Strings(names)
	index, low, comp := map[string]int{}, map[string]int{}, map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	next, count := 0, 0
	var visit func(string)
	visit = func(v string) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range out[v] {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp[w] = count
				if w == v {
					break
				}
			}
			count++
		}
	}
	for _, n := range names {
		if _, seen := index[n]; !seen {
			visit(n)
		}
	}
	return comp
}
