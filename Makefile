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

# Debian packages: GTK and WebKitGTK headers for the desktop build; Xvfb,
# xauth and ImageMagick for the desktop smoke test; Chromium for browser
# tests; patch, ripgrep and trash-cli for the file tools' tests.
APT_PACKAGES := libgtk-3-dev libwebkit2gtk-4.1-dev xvfb xauth imagemagick chromium patch ripgrep trash-cli

NPM_STAMP     := frontend/node_modules/.foya-npm-ci
FRONTEND_SRC  := $(shell find frontend/src frontend/wailsjs -type f 2>/dev/null) \
                 frontend/index.html frontend/package.json frontend/package-lock.json \
                 frontend/tsconfig.json frontend/vite.config.ts
FRONTEND_DIST := frontend/dist/index.html

.PHONY: run build test test-go test-frontend test-smoke deps deps-system deps-npm frontend bindings dev clean help

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | expand -t 16

run: build ## install what is missing, build, start the desktop app
	./$(BIN)

build: deps $(FRONTEND_DIST) ## install what is missing, build the desktop binary into build/bin/foya
	$(GO) build -tags $(TAGS) $(if $(LDFLAGS),-ldflags "$(LDFLAGS)") -o $(BIN) .

test: deps frontend ## install what is missing, then run every test: Go, front end, desktop smoke
	$(MAKE) --no-print-directory test-go
	$(MAKE) --no-print-directory test-frontend
	$(MAKE) --no-print-directory test-smoke

# GORACE: a race-enabled program sleeps a second before it exits, so that
# late reports get out; the sandbox helper is the test binary itself, so
# without this every command of a test would take a second longer.
test-go: ## go vet and go test -race (no install, no desktop)
	$(GO) vet ./...
	@mkdir -p build
	@rm -f build/escape-suite.txt
	env -u FOYA_SMOKE_TEST FOYA_ESCAPE_REPORT=$(CURDIR)/build/escape-suite.txt GORACE=atexit_sleep_ms=0 $(GO) test -race ./...
	@cat build/escape-suite.txt 2>/dev/null || echo "escape suite: did not run (cached result or no sandbox here)"

test-frontend: deps-npm ## the front end's unit tests (vitest)
	cd frontend && npx vitest run

test-smoke: $(FRONTEND_DIST) ## the desktop smoke test: the real binary under Xvfb, with a screenshot
	FOYA_SMOKE_TEST=1 $(GO) test -count=1 -v -run '^TestDesktop' ./tests/smoke/
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

# Everything the front end gets generated from Go: frontend/wailsjs (the
# bound methods; the modes match what `wails dev` and `wails build` write,
# so that using either leaves git status clean) and frontend/src/backend/gen
# (tygo.yaml: events, kernel DTOs, enums; tests/bindings_test.go fails when
# it is stale).
bindings: ## regenerate frontend/wailsjs and frontend/src/backend/gen from the Go types
	$(GO) tool wails generate module
	chmod -R a-x,a+X frontend/wailsjs/runtime
	$(GO) tool tygo generate

dev: deps ## live-reloading desktop app for development (Wails dev server)
	$(GO) tool wails dev -m -tags webkit2_41

clean: ## remove build output (keeps installed modules)
	rm -rf build/bin tests/smoke/out
	find frontend/dist -mindepth 1 ! -name .gitkeep -exec rm -rf {} +
