package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"foya/backend/kernel"
	"foya/backend/llm"
)

// asker answers approval requests on a terminal, one at a time.
type asker struct {
	in     *bufio.Reader
	out    io.Writer
	answer func(id string, a kernel.Answer) error
	mu     sync.Mutex
}

// ask shows one request and reads the person's answer. It runs on its own
// goroutine per request; requests are asked in turn.
func (a *asker) ask(ev llm.Event) {
	var p kernel.Approval
	if err := json.Unmarshal(ev.Data, &p); err != nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	act := p.Request.Action
	fmt.Fprintf(a.out, "\n── approval needed: %s (%s)\n", act.Tool, act.Kind)
	if p.SubAgent != "" {
		fmt.Fprintf(a.out, "   asked by the sub-agent: %s\n", p.SubAgent)
	}
	if p.Request.Why != "" {
		fmt.Fprintf(a.out, "   %s\n", p.Request.Why)
	}
	if act.Command != "" {
		fmt.Fprintf(a.out, "   command: %s\n", act.Command)
	}
	for _, path := range act.Paths {
		fmt.Fprintf(a.out, "   path: %s\n", path)
	}
	if act.Host != "" {
		fmt.Fprintf(a.out, "   host: %s\n", act.Host)
	}
	if len(act.Addresses) > 0 {
		fmt.Fprintf(a.out, "   loopback or private address: %s\n", strings.Join(act.Addresses, ", "))
	}
	if p.Request.Preview != "" {
		preview := p.Request.Preview
		if lines := strings.Split(preview, "\n"); len(lines) > 40 {
			preview = strings.Join(lines[:40], "\n") + fmt.Sprintf("\n   … %d more lines", len(lines)-40)
		}
		fmt.Fprintf(a.out, "%s\n", preview)
	}
	fmt.Fprintf(a.out, "   why asked: %s\n", p.Reason)
	for {
		if len(p.Scopes) == 0 {
			fmt.Fprint(a.out, "Allow? [y] once  [n] deny  [m] deny with a message: ")
		} else {
			fmt.Fprint(a.out, "Allow? [y] once  [s] for this session  [n] deny  [m] deny with a message: ")
		}
		line, err := a.in.ReadString('\n')
		if err != nil && line == "" {
			a.reply(p.ID, kernel.Answer{Choice: kernel.Deny, Message: "no answer (standard input closed)"})
			return
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			a.reply(p.ID, kernel.Answer{Choice: kernel.AllowOnce})
			return
		case "s":
			if len(p.Scopes) == 0 {
				fmt.Fprintln(a.out, "   This cannot be allowed for the session, only once: answer y, n or m.")
				continue
			}
			scope := p.Scopes[0]
			if len(p.Scopes) > 1 {
				for i, s := range p.Scopes {
					fmt.Fprintf(a.out, "   %d) %s\n", i+1, s)
				}
				fmt.Fprint(a.out, "Allow which for this session? [1]: ")
				choice, _ := a.in.ReadString('\n')
				if n, err := strconv.Atoi(strings.TrimSpace(choice)); err == nil && n >= 1 && n <= len(p.Scopes) {
					scope = p.Scopes[n-1]
				}
			}
			a.reply(p.ID, kernel.Answer{Choice: kernel.AllowSession, Scope: &scope})
			return
		case "n", "no":
			a.reply(p.ID, kernel.Answer{Choice: kernel.Deny})
			return
		case "m":
			fmt.Fprint(a.out, "Message for the agent: ")
			msg, _ := a.in.ReadString('\n')
			a.reply(p.ID, kernel.Answer{Choice: kernel.Deny, Message: strings.TrimSpace(msg)})
			return
		}
	}
}

func (a *asker) reply(id string, ans kernel.Answer) {
	if err := a.answer(id, ans); err != nil {
		fmt.Fprintf(a.out, "foya: %v\n", err)
	}
}
