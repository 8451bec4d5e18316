# Foya's build. `make run` and `make test` install what is missing first.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := build

GO        ?= go
TAGS      := desktop,production,webkit2_41
BIN       := build/bin/foya
# VERSION, when given, is linked in as the kernel's version (make build VERSION=1.2.3).
VERSION   ?=
LDFLAGS   := $(if $(VERSION),-X foya/backend/kernel.Version=$(VERSION))

# --- version: the commit and its date, linked in beside VERSION ---
# COMMIT is HEAD's first 7 hex digits (as many as a binary shows of what
# go build records; git's own --short grows with the repository), with
# -dirty when tracked files differ from it; COMMIT_DATE is that commit's date. Outside a git work tree
# both stay empty and the binary falls back to what go build recorded. The
# date is the commit's, in UTC, so that one commit always builds the same.
ifeq ($(origin COMMIT),undefined)
COMMIT := $(shell c=$$(git rev-parse --verify --quiet HEAD 2>/dev/null) && c=$$(printf %.7s "$$c") && { git diff --quiet HEAD -- 2>/dev/null || c="$$c-dirty"; echo "$$c"; })
endif
COMMIT_DATE ?= $(shell TZ=UTC git log -1 --format=%cd --date=format-local:%Y-%m-%d 2>/dev/null)
LDFLAGS += $(if $(COMMIT),-X foya/backend/kernel.BuildCommit=$(COMMIT))
LDFLAGS += $(if $(COMMIT_DATE),-X foya/backend/kernel.BuildDate=$(COMMIT_DATE))
# The small sandbox helper (cmd/foya-sandbox) is built beside the binary
# with the same stamp, which foya checks before it starts the helper (see
# sandbox.HelperStamp and scripts/sandbox-stamp.sh).
SANDBOX_STAMP ?= $(shell GO='$(GO)' scripts/sandbox-stamp.sh)
LDFLAGS += $(if $(SANDBOX_STAMP),-X foya/backend/sandbox.HelperStamp=$(SANDBOX_STAMP))
LDFLAGS := $(strip $(LDFLAGS))
HELPER  := build/bin/foya-sandbox
# --- end version ---

# Debian packages: GTK and WebKitGTK headers for the desktop build; Xvfb,
# xauth, ImageMagick and xdotool (key presses) for the desktop smoke test;
# Chromium for browser tests; patch, ripgrep and trash-cli for the file
# tools' tests;
# desktop-file-utils to validate the menu entry make install writes; and
# what the other tests need, which under CI fail instead of skipping
# without it (so that a green CI run means every layer was tested):
# bubblewrap, python3 and util-linux (flock,
# unshare, mount) for the sandbox's, git, e2fsprogs (chattr), dbus (the
# keyring and notification tests start a session bus of their own with its
# dbus-daemon), libglib2.0-bin and gvfs (gio's trash); the sqlite3 shell
# for the tests of many processes on one database; iproute2 (ip) to bring
# up the loopback of the MCP conformance suite's private network; for the
# release checks, rpm (to read the .rpm), nsis (makensis, the Windows
# installer) and shellcheck (actionlint checks the workflows' scripts with it).
APT_PACKAGES := libgtk-3-dev libwebkit2gtk-4.1-dev xvfb xauth imagemagick chromium patch ripgrep trash-cli desktop-file-utils \
                bubblewrap python3 util-linux git e2fsprogs dbus libglib2.0-bin gvfs sqlite3 xdotool iproute2 \
                rpm nsis shellcheck

NPM_STAMP     := frontend/node_modules/.foya-npm-ci
FRONTEND_SRC  := $(shell find frontend/src -type f 2>/dev/null) \
                 frontend/index.html frontend/package.json frontend/package-lock.json \
                 frontend/tsconfig.json frontend/vite.config.ts
FRONTEND_DIST := frontend/dist/index.html

.PHONY: run build helper test shots test-go test-conformance tidy-check bench test-frontend test-e2e test-smoke bench-review crash soak fuzz deps deps-system deps-npm frontend bindings dev clean help

help: ## list the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | expand -t 16

run: build ## install what is missing, build, start the desktop app
	./$(BIN)

build: deps $(FRONTEND_DIST) ## install what is missing, build the desktop binary into build/bin/foya (and its sandbox helper)
	$(GO) build -tags $(TAGS) $(if $(LDFLAGS),-ldflags "$(LDFLAGS)") -o $(BIN) .
	$(MAKE) --no-print-directory helper

# The small sandbox helper, static (no C library to load at each command).
helper: ## build the small sandbox helper beside the binary: build/bin/foya-sandbox
	CGO_ENABLED=0 $(GO) build $(if $(LDFLAGS),-ldflags "$(LDFLAGS)") -o $(HELPER) ./cmd/foya-sandbox

# The sandbox's whole test suite (the escapes included) with the small helper
# as every command's helper, instead of the test binary (about as long as
# the package's own tests: not in make test, which runs them once).
.PHONY: test-small-helper
test-small-helper: helper ## the sandbox package's tests with build/bin/foya-sandbox as the helper
	FOYA_TEST_SMALL_HELPER=$(CURDIR)/$(HELPER) GORACE=atexit_sleep_ms=0 $(GO) test -race -count=1 ./backend/sandbox/

test: deps frontend ## install what is missing, then run every test: Go, MCP conformance, front end, browser, desktop smoke, package, release
	$(MAKE) --no-print-directory test-go
	$(MAKE) --no-print-directory test-conformance
	$(MAKE) --no-print-directory test-frontend
	$(MAKE) --no-print-directory test-e2e
	$(MAKE) --no-print-directory test-smoke
	$(MAKE) --no-print-directory test-package
	$(MAKE) --no-print-directory lint-workflows
	$(MAKE) --no-print-directory test-release-linux
	$(MAKE) --no-print-directory test-windows

# GORACE: a race-enabled program sleeps a second before it exits, so that
# late reports get out; the sandbox helper is the test binary itself, so
# without this every command of a test would take a second longer.
# GO_TEST_TIMEOUT bounds each package's test binary (go test's own default
# is 10 minutes): the slowest package, tests, took 230 s on a quiet 2-core
# machine, 541 s at a load average of 7 to 28 and 1,835 s at 20 to 30
# (docs/reliability.md, "Test times"), so 40 minutes fits a machine three
# times slower than the loaded one. Under CI (CI set, as .ci/run runs) results are never taken
# from go test's cache, and an escape suite that did not run fails the
# target, as does any test that lacks what it needs: what was not tested
# must not pass as tested.
GO_TEST_TIMEOUT ?= 40m
# GO_TEST_RACE_EXEMPT builds SQLite's transpiled C code (modernc.org/sqlite/lib,
# its libc and its allocator) without the race detector's instrumentation,
# which also drops its checkptr checks there: that instrumentation was most
# of the CPU of the database-bound tests (TestTenThousandToolCallsInOneAnswer:
# 57 s of CPU with it, 15 s without), and it looks only at code we do not
# write, code that a cgo SQLite would not expose to the race detector at all. Foya's
# code, the standard library's (database/sql) and the SQLite driver's Go code
# (modernc.org/sqlite, which copies values in and out) stay instrumented
# (docs/reliability.md, "Test times"). Set it empty for a fully instrumented run.
GO_TEST_RACE_EXEMPT ?= -gcflags=modernc.org/sqlite/lib=-race=false -gcflags=modernc.org/libc/...=-race=false \
  -gcflags=modernc.org/memory=-race=false
IN_CI := $(filter-out false 0,$(CI))
test-go: ## go.mod tidy, go vet and go test -race (no install, no desktop)
	$(MAKE) --no-print-directory tidy-check
	$(GO) vet ./...
	@mkdir -p build
	@rm -f build/escape-suite.txt
	env -u FOYA_SMOKE_TEST -u FOYA_E2E FOYA_ESCAPE_REPORT=$(CURDIR)/build/escape-suite.txt GORACE=atexit_sleep_ms=0 \
	  $(GO) test -race $(GO_TEST_RACE_EXEMPT) -timeout $(GO_TEST_TIMEOUT) $(if $(IN_CI),-count=1) ./...
	@cat build/escape-suite.txt 2>/dev/null || true; grep -q '^escape suite:' build/escape-suite.txt 2>/dev/null && exit 0; \
	if [ -n "$(IN_CI)" ]; then echo "escape suite: did not run under CI (see TestEscapeSuite above: it names what this machine lacks)" >&2; exit 1; fi; \
	echo "escape suite: did not run (cached result, or no sandbox here)"

# go mod tidy -diff changes nothing and prints what tidy would change; it
# exits non-zero when go.mod or go.sum is not tidy (a direct dependency
# marked indirect, a module no longer used, a missing sum). It needs only
# the module cache or the module proxy.
tidy-check: ## fail when go.mod or go.sum is not tidy
	@$(GO) mod tidy -diff || { echo "go.mod or go.sum is not tidy: run go mod tidy and commit both" >&2; exit 1; }

# make test runs every fuzz target's seed corpus (go test ./... does);
# make fuzz runs each target for FUZZTIME, one after the other
# (scripts/fuzz.sh finds them; FUZZ=regexp narrows the run).
FUZZTIME ?= 60s
fuzz: ## run every Go fuzz target for FUZZTIME each (default 60s), one at a time
	FUZZTIME=$(FUZZTIME) GO=$(GO) scripts/fuzz.sh

# --- MCP conformance: the official suite's client scenarios ---
# @modelcontextprotocol/conformance (pinned in scripts/conformance/package.json,
# installed there with npm ci) starts a test server for each client
# scenario and runs scripts/conformance/client.mjs, which drives foya mcp
# tools and foya mcp call against it. The suite needs Node 22 or later
# (fs.globSync): with an older system node, Node from npm (pinned in
# scripts/conformance/node/) is installed into build/conformance/node.
# scripts/conformance/run.sh runs the suite in a private network namespace
# (its servers listen on every interface), prints its count line, and fails
# when a scenario of scripts/conformance/expected-pass.txt fails. A few
# seconds once installed; docs/mcp.md, "Conformance", has the results.
CONFORMANCE_OUT        := build/conformance
CONFORMANCE_STAMP      := scripts/conformance/node_modules/.foya-npm-ci
CONFORMANCE_NODE_DIR   := $(CONFORMANCE_OUT)/node
CONFORMANCE_NODE_STAMP := $(CONFORMANCE_NODE_DIR)/node_modules/.foya-npm-ci

test-conformance: $(CONFORMANCE_STAMP) ## the MCP conformance suite's client scenarios against foya mcp
	$(GO) build -o $(CONFORMANCE_OUT)/foya .
	@if node -e 'process.exit(+process.versions.node.split(".")[0] >= 22 ? 0 : 1)' 2>/dev/null; then node=$$(command -v node); \
	else $(MAKE) -s --no-print-directory $(CONFORMANCE_NODE_STAMP); node=$(CURDIR)/$(CONFORMANCE_NODE_DIR)/node_modules/.bin/node; fi; \
	scripts/conformance/run.sh "$$node" $(CONFORMANCE_OUT)/foya $(CONFORMANCE_OUT)/run

$(CONFORMANCE_STAMP): scripts/conformance/package.json scripts/conformance/package-lock.json
	cd scripts/conformance && npm ci --no-audit --no-fund
	touch $@

$(CONFORMANCE_NODE_STAMP): scripts/conformance/node/package.json scripts/conformance/node/package-lock.json
	rm -rf $(CONFORMANCE_NODE_DIR) && mkdir -p $(CONFORMANCE_NODE_DIR)
	cp $^ $(CONFORMANCE_NODE_DIR)/
	cd $(CONFORMANCE_NODE_DIR) && npm ci --no-audit --no-fund
	$(CONFORMANCE_NODE_DIR)/node_modules/.bin/node --version
	touch $@
# --- end MCP conformance ---

test-frontend: deps-npm ## the front end's unit tests (vitest)
	cd frontend && npx vitest run

test-e2e: deps-npm $(FRONTEND_DIST) ## browser end-to-end tests: foya serve driven in Chromium (playwright-core)
	FOYA_E2E=1 $(GO) test -count=1 -timeout $(GO_TEST_TIMEOUT) -v ./tests/e2e/
	@# The conversation view alone in Chromium: opening 2,000 cards, scrolling,
	@# streaming, following, a diff (asserted); its times are printed, and
	@# asserted against their targets only by make bench-conversation.
	@mkdir -p tests/e2e/out
	cd frontend && npx vite build --logLevel warn --config e2e/conversation/vite.config.ts && CONVO_SHOTS=$(CURDIR)/tests/e2e/out node e2e/conversation/check.mjs
	@echo "screenshots: tests/e2e/out/"

# Screenshots of every view at 1280x800 and 1920x1080, light and dark
# (tests/e2e/out/views/), each view checked on the way; docs/ui.md shows
# some of them. Not in make test: it makes pictures to look at.
shots: deps-npm $(FRONTEND_DIST) ## screenshots of every view, both sizes, both themes, into tests/e2e/out/views/
	FOYA_E2E=1 FOYA_VIEWS=1 $(GO) test -count=1 -timeout $(GO_TEST_TIMEOUT) -v -run '^TestBrowserEveryView$$' ./tests/e2e/
	@echo "screenshots: tests/e2e/out/views/"

# The conversation view's figures on 5 fresh pages, asserted against the
# targets of docs/benchmarks.md ("Conversation view") times CONVO_MARGIN
# (1.5 by default; 1 holds it to the targets). A benchmark: on a busy
# machine it fails, so make test does not run it.
CONVO_MARGIN ?= 1.5
.PHONY: bench-conversation
bench-conversation: deps-npm ## the conversation view's open, scroll and stream times against their targets (Chromium)
	@mkdir -p tests/e2e/out
	cd frontend && npx vite build --logLevel warn --config e2e/conversation/vite.config.ts && CONVO_BENCH=1 CONVO_MARGIN=$(CONVO_MARGIN) CONVO_SHOTS=$(CURDIR)/tests/e2e/out node e2e/conversation/check.mjs

bench-review: deps-npm ## the review panel's first paint and a 5,000-line diff's drawing and scrolling, 500 changes (Chromium)
	cd frontend && npx vite build --logLevel warn --config e2e/review/vite.config.ts && node e2e/review/bench.mjs

# The crash harness (tests/crash) runs 10 kills in make test; this is the
# long form. SEED replays a run of kills (each kill's seed is printed).
KILLS ?= 100
crash: ## the crash harness: kill foya exec 100 times (KILLS=n, SEED=n) and check every restart
	$(GO) test -count=1 -v -timeout 30m -run '^TestCrash$$' ./tests/crash -args -kills $(KILLS) -bg-tracked $(if $(SEED),-seed $(SEED))

# Many processes on one database (Foya processes may share one): make test runs a few
# loops of tests/database_processes_test.go; this runs them for SOAK
# (a Go duration) and prints the figures docs/reliability.md quotes.
SOAK ?= 10m
soak: ## many processes writing one database for SOAK (default 10m): operations and errors
	FOYA_SOAK=$(SOAK) GORACE=atexit_sleep_ms=0 $(GO) test -race -count=1 -v -timeout 0 -run '^TestManyProcessesOneDatabase$$' ./tests | grep -E 'operations|^(---|ok|FAIL|PASS)|database_processes_test'

test-smoke: $(FRONTEND_DIST) ## the desktop smoke test: the real binary under Xvfb, with a screenshot
	FOYA_SMOKE_TEST=1 $(GO) test -count=1 -timeout $(GO_TEST_TIMEOUT) -v -run '^TestDesktop' ./tests/smoke/
	@echo "screenshots: tests/smoke/out/"

deps: deps-system deps-npm ## install missing system packages and npm modules

# Installs only what dpkg does not report installed; sudo only when not root.
deps-system:
	@missing=""; \
	for p in $(APT_PACKAGES); do \
	  dpkg -s "$$p" 2>/dev/null | grep -q '^Status: install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "system packages: all installed"; exit 0; fi; \
	echo "system packages: installing$$missing"; \
	if [ "$$(id -u)" = 0 ]; then sudo=""; \
	elif command -v sudo >/dev/null; then sudo="sudo"; \
	else echo "not root and no sudo: install these with apt-get:$$missing" >&2; exit 1; fi; \
	$$sudo env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update; \
	$$sudo env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y $$missing

deps-npm: $(NPM_STAMP)

# npm ci when node_modules is missing or older than the lock file.
$(NPM_STAMP): frontend/package-lock.json frontend/package.json
	cd frontend && npm ci --no-audit --no-fund
	touch $@

frontend: deps-npm $(FRONTEND_DIST) ## build the front end into frontend/dist

$(FRONTEND_DIST): $(NPM_STAMP) $(FRONTEND_SRC)
	cd frontend && npm run build

# Everything the front end gets generated from Go, into
# frontend/src/backend/gen: tygo.yaml (events, the kernel's DTO files, the
# desktop App's) and backend/api/gen (the typed API client);
# tests/bindings_test.go and backend/api/gen fail when it is stale. Wails's
# own frontend/wailsjs is not used (the front end calls window.go itself):
# wails build and wails dev still write it, and git ignores it.
bindings: ## regenerate frontend/src/backend/gen from the Go types
	$(GO) tool tygo generate
	$(GO) run ./backend/api/gen

# --- benchmarks: make bench ---
# Every Go benchmark of the module (found by bench/run from the test files:
# a new func Benchmark... needs no change here), one package at a time, then
# a scripted 200-call foya exec session, the shell sessions (a bash call's
# CPU above plain bash -c, and a 1,000-step session's last hundred steps
# against its first: issue 27); the figures, with the date and the
# core count, replace the generated block of docs/benchmarks.md. Knobs:
# BENCHTIME (go test -benchtime; 1x keeps it to a few minutes, 200ms gives
# steadier figures for fast benchmarks), BENCH (a -bench regexp), EXEC_RUNS
# (runs of the session; 0 for none), WORKLOADS (the shared comparison
# workloads' folder, holding workloads.sh). The grep benchmarks' generated
# tree (about 250 MB) is kept in FOYA_GREP_TREE for later runs.
BENCHTIME ?= 1x
BENCH     ?= .
EXEC_RUNS ?= 3
WORKLOADS ?=
FOYA_GREP_TREE ?= $(or $(TMPDIR),/tmp)/foya-grep-tree

bench: ## run every benchmark and rewrite the figures in docs/benchmarks.md
	FOYA_GREP_TREE=$(FOYA_GREP_TREE) SANDBOX_STAMP=$(SANDBOX_STAMP) $(GO) run ./bench/run -benchtime '$(BENCHTIME)' -bench '$(BENCH)' -exec-runs $(EXEC_RUNS) $(if $(WORKLOADS),-workloads '$(WORKLOADS)')

# make bench-economy: what Foya sends the model on the shared workloads
# (bench/economy: total and uncached input per task, every request body
# kept), WORKLOADS being their folder (default ../shared/bench); CODEX, the
# path of a Codex CLI, measures it in the same run.
CODEX ?=
.PHONY: bench-economy
bench-economy: ## total and uncached model input per shared workload (bench/economy; CODEX=path adds the Codex CLI)
	$(GO) build -o build/bin/foya-economy . && $(GO) run ./bench/economy -foya build/bin/foya-economy -shared '$(or $(WORKLOADS),../shared/bench)' $(if $(CODEX),-codex '$(CODEX)')
# --- end benchmarks ---

# --- mutation testing: not part of make test (long, CPU heavy) ---
# make mutate applies each spec-named mutation of bench/mutate/mutations.go
# to a copy of the tree and runs the tests that should notice (about 15
# minutes). make mutate-gremlins runs gremlins, a served Go mutation tool,
# over backend/approval against its own tests: operator flips, an hour or
# more on two cores, each test process held to 4 GiB of address space
# because a mutant can loop allocating. Run one at a time.
GREMLINS := github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0
.PHONY: mutate mutate-gremlins

mutate: ## mutation testing (long, not in make test): the spec-named mutations of bench/mutate
	env -u FOYA_SMOKE_TEST -u FOYA_E2E $(GO) run ./bench/mutate

mutate-gremlins: ## gremlins' operator mutations in backend/approval, against its own tests (longer still)
	ulimit -v 4194304 && $(GO) run $(GREMLINS) unleash --workers 1 --timeout-coefficient 10 ./backend/approval
# --- end mutation testing ---

dev: deps ## live-reloading desktop app for development (Wails dev server)
	$(GO) tool wails dev -m -tags webkit2_41

clean: ## remove build output (keeps installed modules)
	rm -rf build/bin build/conformance/foya build/conformance/run tests/smoke/out tests/e2e/out
	find frontend/dist -mindepth 1 ! -name .gitkeep -exec rm -rf {} +

# --- packaging: the Debian package, the per-user install, their test ---
# The .deb and the per-user install take build/bin/foya as make build left
# it; icons are made from build/appicon.png at the hicolor sizes.
.PHONY: package package-rpm install uninstall icons test-package

ICON_SIZES := 16 32 48 64 128 256 512
ICON_DIR   := build/linux/icons/hicolor
ICONS      := $(foreach s,$(ICON_SIZES),$(ICON_DIR)/$(s)x$(s)/apps/foya.png)
PREFIX     ?= $(HOME)/.local
PKG_ARCH    = $(shell $(GO) env GOARCH)
PKG_DIR    ?= build/bin

# make clean removes the icons and Wails' Windows leftovers too.
clean: clean-package
.PHONY: clean-package
clean-package:
	rm -rf build/linux/icons build/windows/installer/tmp build/windows/installer/wails_tools.nsh

icons: $(ICONS) ## the hicolor icons, from build/appicon.png

# The date chunks are left out so that the same icon gives the same bytes.
$(ICON_DIR)/%/apps/foya.png: build/appicon.png
	@mkdir -p $(@D)
	convert $< -resize $* -strip -define png:exclude-chunks=date,time $@

package: build icons ## the Debian package build/bin/foya_VERSION_ARCH.deb (nfpm), of the binary make build made
	rm -f $(PKG_DIR)/foya_*.deb
	$(call nfpm,deb)
	@ls $(PKG_DIR)/foya_*.deb

package-rpm: build icons ## the RPM package build/bin/foya-VERSION-1.ARCH.rpm (nfpm), of the binary make build made
	rm -f $(PKG_DIR)/foya-*.rpm
	$(call nfpm,rpm)
	@ls $(PKG_DIR)/foya-*.rpm

# $(call nfpm,PACKAGER): build/linux/nfpm.yaml's package of $(BIN) and its
# sandbox helper $(HELPER), whose version is what that binary's --version
# says, into PKG_DIR (build/bin; scripts/release-linux.sh gives its own BIN,
# HELPER and PKG_DIR).
define nfpm
	version=$$('$(BIN)' --version | awk 'NR == 1 { print $$2 }'); \
	FOYA_VERSION="$$version" FOYA_ARCH=$(PKG_ARCH) FOYA_BIN='$(BIN)' FOYA_HELPER='$(HELPER)' FOYA_ICON_DIR='$(ICON_DIR)' \
	  $(GO) tool nfpm package --packager $(1) --config build/linux/nfpm.yaml --target '$(PKG_DIR)'/
endef

# Per-user: the binary in PREFIX/bin, a menu entry whose Exec is that
# binary's absolute path (quoted as the desktop-entry spec says, so a PREFIX
# with spaces works: build/linux/desktop-entry.sh), the icons; the caches
# are refreshed only where their tools are installed. QPREFIX is PREFIX
# quoted for the shell, whatever it holds.
QPREFIX = '$(subst ','\'',$(PREFIX))'

install: build icons ## install for this user: ~/.local/bin/foya, a menu entry and icons (PREFIX=~/.local)
	install -Dm755 "$(BIN)" $(QPREFIX)/bin/foya
	install -Dm755 "$(HELPER)" $(QPREFIX)/lib/foya/foya-sandbox
	install -d $(QPREFIX)/share/applications
	bin="$$(cd $(QPREFIX)/bin && pwd)/foya"; \
	build/linux/desktop-entry.sh "$$bin" < build/linux/foya.desktop > $(QPREFIX)/share/applications/foya.desktop.new; \
	chmod 644 $(QPREFIX)/share/applications/foya.desktop.new; \
	mv -f $(QPREFIX)/share/applications/foya.desktop.new $(QPREFIX)/share/applications/foya.desktop
	for s in $(ICON_SIZES); do \
	  install -Dm644 "$(ICON_DIR)/$${s}x$${s}/apps/foya.png" $(QPREFIX)"/share/icons/hicolor/$${s}x$${s}/apps/foya.png"; \
	done
	$(call refresh-caches)
	@bindir="$$(cd $(QPREFIX)/bin && pwd)"; \
	echo "installed $$bindir/foya and its menu entry, Foya"; \
	case ":$$PATH:" in *":$$bindir:"*) ;; \
	  *) echo "note: $$bindir is not on your PATH: the menu entry works, a shell needs the full path";; esac

uninstall: ## remove what make install put in place (PREFIX=~/.local)
	rm -f $(QPREFIX)/bin/foya $(QPREFIX)/lib/foya/foya-sandbox $(QPREFIX)/share/applications/foya.desktop
	rmdir $(QPREFIX)/lib/foya 2>/dev/null || true
	for s in $(ICON_SIZES); do rm -f $(QPREFIX)"/share/icons/hicolor/$${s}x$${s}/apps/foya.png"; done
	$(call refresh-caches)

define refresh-caches
	if command -v update-desktop-database >/dev/null; then update-desktop-database -q $(QPREFIX)/share/applications; fi
	if command -v gtk-update-icon-cache >/dev/null && [ -d $(QPREFIX)/share/icons/hicolor ]; then \
	  gtk-update-icon-cache -q -t -f $(QPREFIX)/share/icons/hicolor; fi
endef

# Builds the .deb, installs it with dpkg, checks the installed binary's
# --version against the built one, runs a desktop smoke test against the
# installed binary, and removes the package, also when a step failed. It
# needs root (or sudo) for dpkg; without either it says so and passes.
test-package: package package-rpm ## the .deb's and .rpm's contents; install the .deb, check foya --version and the desktop smoke test on it, remove it
	FOYA_PACKAGES=$(CURDIR)/$(PKG_DIR) $(GO) test -count=1 -v -run '^TestLinuxPackages$$' ./tests/packaging/
	@if [ "$$(id -u)" = 0 ]; then sudo=""; \
	elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo="sudo -n"; \
	else echo "test-package: skipped: dpkg -i needs root, and sudo is missing or asks for a password"; exit 0; fi; \
	deb=$$(ls build/bin/foya_*.deb); \
	if dpkg -s foya >/dev/null 2>&1; then echo "test-package: a foya package is installed already; remove it first (dpkg -r foya)" >&2; exit 1; fi; \
	trap '$$sudo dpkg -r foya >/dev/null && echo "test-package: removed the foya package"' EXIT; \
	$$sudo dpkg -i "$$deb"; \
	want=$$(./$(BIN) --version); got=$$(/usr/bin/foya --version); \
	echo "installed: $$got"; \
	if [ "$$got" != "$$want" ]; then echo "test-package: /usr/bin/foya --version = '$$got'; want '$$want'" >&2; exit 1; fi; \
	case "$$got" in *"commit $(COMMIT)"*) ;; *) echo "test-package: --version lacks the commit $(COMMIT)" >&2; exit 1;; esac; \
	for f in /usr/share/applications/foya.desktop $(foreach s,$(ICON_SIZES),/usr/share/icons/hicolor/$(s)x$(s)/apps/foya.png); do \
	  [ -f "$$f" ] || { echo "test-package: the package did not install $$f" >&2; exit 1; }; \
	done; \
	FOYA_SMOKE_TEST=1 FOYA_SMOKE_BIN=/usr/bin/foya $(GO) test -count=1 -v -run '^TestDesktopWindowShowsStoredSessions$$' ./tests/smoke/
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; prefix="$$tmp/with space"; \
	$(MAKE) --no-print-directory install PREFIX="$$prefix" >/dev/null; \
	entry="$$prefix/share/applications/foya.desktop"; \
	grep -qxF "Exec=\"$$prefix/bin/foya\"" "$$entry" || { echo "test-package: $$entry's Exec is not the quoted path:" >&2; grep Exec "$$entry" >&2; exit 1; }; \
	out=$$(desktop-file-validate build/linux/foya.desktop "$$entry" 2>&1) && [ -z "$$out" ] || \
	  { echo "test-package: desktop-file-validate: $$out" >&2; exit 1; }; \
	"$$prefix/bin/foya" --version >/dev/null; \
	$(MAKE) --no-print-directory uninstall PREFIX="$$prefix" >/dev/null; \
	left=$$(find "$$tmp" -type f ! -name 'icon-theme.cache' ! -name 'mimeinfo.cache'); \
	if [ -n "$$left" ]; then echo "test-package: make uninstall left $$left" >&2; exit 1; fi; \
	echo "test-package: make install and make uninstall (PREFIX='$$prefix', its menu entry valid): ok"
# --- end packaging ---

# --- release: .github/workflows, checked here ---
# release.yml builds every platform's download on a version tag; ci.yml runs
# make test on pull requests and builds (without testing) Windows and macOS.
# Here: actionlint on both (shellcheck checks their run: scripts), a dry run
# of release.yml's Linux job (scripts/release-linux.sh, for this machine's
# architecture, into a temporary folder; its packages, tarball and
# SHA256SUMS then checked by tests/packaging), and the Windows cross-build
# that release.yml makes (wails build, with its NSIS installer where
# makensis is installed). docs/release.md says how a release is made. make
# test runs them after the front end is built; the dry run needs it.
.PHONY: lint-workflows test-release-linux test-windows

lint-workflows: ## actionlint (a Go tool of the module) on .github/workflows
	$(GO) tool actionlint -color=false
	@if command -v shellcheck >/dev/null; then echo "lint-workflows: ok, run: scripts checked with shellcheck"; \
	else echo "lint-workflows: ok, but shellcheck is not installed (Debian package shellcheck): run: scripts not checked"; fi

# The dry run's packages are checked by tests/packaging, and its binary
# (from the tarball) by a desktop smoke test: the window shows the release's
# version, as the About dialog does.
test-release-linux: ## dry run of the release's Linux job (scripts/release-linux.sh) into a temporary folder, its output checked
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	GO=$(GO) scripts/release-linux.sh 0.0.0-dryrun "$$tmp"; \
	FOYA_PACKAGES="$$tmp" FOYA_PACKAGES_RELEASE=1 $(GO) test -count=1 -v -run '^TestLinuxPackages$$' ./tests/packaging/; \
	mkdir "$$tmp/x" && tar -C "$$tmp/x" --strip-components=1 -xzf "$$tmp"/foya-0.0.0-dryrun-linux-*.tar.gz; \
	FOYA_SMOKE_TEST=1 FOYA_SMOKE_BIN="$$tmp/x/bin/foya" $(GO) test -count=1 -v -run '^TestDesktopWindowShowsStoredSessions$$' ./tests/smoke/

# The Windows build of release.yml, cross-compiled (Wails on Windows needs
# no cgo): go tool wails build (-s: the front end as built, -m: go.mod as
# it is), which adds the icon, manifest and version resource, writes
# build/bin/foya.exe and, with -nsis, the installer
# build/bin/Foya-amd64-installer.exe when makensis is installed. Without
# makensis only the .exe is built, and it says so. Its log: WIN_LOG.
WIN_LOG = build/bin/windows-check.log
test-windows: ## the Windows amd64 cross-build (foya.exe, and the NSIS installer where makensis is)
	@rm -f build/bin/foya.exe build/bin/Foya-amd64-installer.exe; \
	if command -v makensis >/dev/null; then nsis=-nsis; else nsis=; echo "test-windows: makensis not installed (Debian package nsis): the installer is skipped, only foya.exe is built"; fi; \
	$(GO) tool wails build -m -s -skipbindings -platform windows/amd64 $$nsis -o foya.exe \
	  -ldflags "-X foya/backend/kernel.Version=0.0.0-check" >$(WIN_LOG) 2>&1 || { cat $(WIN_LOG); exit 1; }; \
	ls -l build/bin/foya.exe $${nsis:+build/bin/Foya-amd64-installer.exe}
# --- end release ---
