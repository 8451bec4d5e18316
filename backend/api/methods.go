package api

import (
	"foya/backend/approval"
	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/llm"
	"foya/backend/profiles"
	"foya/backend/settings"
)

// The kernel's and the profiles' types appear only in these signatures:
// each body hands a closure to call, do or list, so a renamed type changes
// one line per method.

// Info returns the kernel's version and where it keeps its data. When the
// kernel is not open, only the version is known (the other calls say why).
func (s *Service) Info() (kernel.Info, error) {
	k, err := s.kernel()
	if err != nil {
		return kernel.BuildInfo(), nil
	}
	return k.Info(), nil
}

// Sessions lists the stored sessions, most recently updated first.
func (s *Service) Sessions() ([]kernel.Session, error) {
	return list(s, func(k *kernel.Kernel) ([]kernel.Session, error) { return k.Sessions(s.ctx) })
}

// Session returns one session.
func (s *Service) Session(id string) (kernel.Session, error) {
	return call(s, func(k *kernel.Kernel) (kernel.Session, error) { return k.Session(s.ctx, id) })
}

// CreateSession stores a new session for a folder that exists. An empty
// approval mode means the default mode (DefaultMode).
func (s *Service) CreateSession(ns kernel.NewSession) (kernel.Session, error) {
	return call(s, func(k *kernel.Kernel) (kernel.Session, error) {
		if err := need("workdir", ns.Workdir); err != nil {
			return kernel.Session{}, err
		}
		if ns.ApprovalMode == "" {
			m, err := k.DefaultMode(s.ctx)
			if err != nil {
				return kernel.Session{}, err
			}
			ns.ApprovalMode = string(m)
		}
		return k.CreateSession(s.ctx, ns)
	})
}

// SessionPatch is what UpdateSession changes; nil fields stay as they are.
type SessionPatch struct {
	Title *string `json:"title,omitempty"`
	// Mode is the approval mode (manual, auto, full-access); a switch is
	// recorded in the session's events, as with SetMode.
	Mode     *string `json:"mode,omitempty"`
	Provider *string `json:"provider,omitempty"`
	Model    *string `json:"model,omitempty"`
}

// UpdateSession renames a session or changes its approval mode, provider
// profile or model, and returns the session as it is now.
func (s *Service) UpdateSession(id string, p SessionPatch) (kernel.Session, error) {
	return call(s, func(k *kernel.Kernel) (kernel.Session, error) {
		sess, err := k.Session(s.ctx, id)
		if err != nil {
			return sess, err
		}
		if p.Title != nil {
			t := kernel.Title(*p.Title)
			if t == "" {
				return sess, invalid("the title is empty: give the session a name")
			}
			sess.Title, sess.TitleByUser = t, true
		}
		if p.Mode != nil {
			if _, err := approval.ParseMode(*p.Mode); err != nil {
				return sess, invalid("%v", err)
			}
			sess.ApprovalMode = *p.Mode
		}
		if p.Provider != nil {
			sess.Provider = *p.Provider
		}
		if p.Model != nil {
			sess.Model = *p.Model
		}
		if err := k.UpdateSession(s.ctx, sess); err != nil {
			return sess, err
		}
		return k.Session(s.ctx, id)
	})
}

// DeleteSession deletes a session for good, with its history and its
// background commands. A session with a run going is refused.
func (s *Service) DeleteSession(id string) error {
	return do(s, func(k *kernel.Kernel) error { return k.DeleteSession(s.ctx, id) })
}

// ForkSession starts a new session from a session's history before its
// prompt atPrompt (1-based; 0 forks the whole session) and returns it with
// that prompt's text (the draft the fork is to send in its place). A fork
// of a session that works in its folder works in the same folder; a fork
// of an isolated session gets its own copy with the files as they were at
// that prompt, and is refused (conflict) naming the files that cannot be
// (see ForkSessionWith). The parent is not changed.
func (s *Service) ForkSession(sessionID string, atPrompt int) (kernel.Forked, error) {
	return call(s, func(k *kernel.Kernel) (kernel.Forked, error) {
		if err := need("sessionId", sessionID); err != nil {
			return kernel.Forked{}, err
		}
		return k.ForkSession(s.ctx, sessionID, atPrompt)
	})
}

// ForkSessionWith is ForkSession with options: o.FilesNow forks an
// isolated session with its files as they are now, none taken back to the
// prompt (what to offer when ForkSession said some cannot be).
func (s *Service) ForkSessionWith(o kernel.ForkOptions) (kernel.Forked, error) {
	return call(s, func(k *kernel.Kernel) (kernel.Forked, error) {
		if err := need("sessionId", o.SessionID); err != nil {
			return kernel.Forked{}, err
		}
		return k.ForkSessionWith(s.ctx, o)
	})
}

// ApplySession brings an isolated session's net change into the folder it
// was made from (docs/isolated-sessions.md): files the folder changed too
// are returned as conflicts with both diffs and left as they are, unless
// their paths are in o.Take. A session that works in its folder is
// refused (invalid), as is one whose copy was discarded (conflict) or that
// is running (busy).
func (s *Service) ApplySession(o kernel.ApplyOptions) (kernel.ApplyResult, error) {
	return call(s, func(k *kernel.Kernel) (kernel.ApplyResult, error) {
		if err := need("sessionId", o.SessionID); err != nil {
			return kernel.ApplyResult{}, err
		}
		return k.ApplySession(s.ctx, o)
	})
}

// DiscardSession removes an isolated session's copy (a worktree with its
// branch, or the copied folder); the session's history stays.
func (s *Service) DiscardSession(id string) error {
	return do(s, func(k *kernel.Kernel) error { return k.DiscardSession(s.ctx, id) })
}

// SetupRunning reports whether the setup command of an isolated session's
// new copy is running: its runs are refused (busy) until it ends, and its
// output comes as isolation.setup events.
func (s *Service) SetupRunning(sessionID string) (bool, error) {
	return call(s, func(k *kernel.Kernel) (bool, error) {
		if _, err := k.Session(s.ctx, sessionID); err != nil {
			return false, err
		}
		return k.SetupRunning(sessionID), nil
	})
}

// SessionCopies lists the isolated sessions' copies on disk with the disk
// each takes.
func (s *Service) SessionCopies() ([]kernel.SessionCopy, error) {
	return list(s, func(k *kernel.Kernel) ([]kernel.SessionCopy, error) { return k.SessionCopies(s.ctx) })
}

// RemoveOrphanCopy removes a copy whose session is not recorded (one
// SessionCopies marks as an orphan) now, rather than at the next start.
func (s *Service) RemoveOrphanCopy(id string) error {
	return do(s, func(k *kernel.Kernel) error {
		if err := need("id", id); err != nil {
			return err
		}
		return k.RemoveOrphanCopy(s.ctx, id)
	})
}

// Run starts a turn in a session with the user's message and returns the
// run's ID as soon as the run is stored; the run goes on in the background
// and its events come by subscription. It fails at once (and starts
// nothing) when the session is unknown, already has a run going (busy) or
// has no model to ask.
func (s *Service) Run(sessionID, message string) (string, error) {
	return s.RunWithResources(sessionID, message, nil)
}

// Cancel cancels a session's running run; it reports whether there was one.
func (s *Service) Cancel(sessionID string) (bool, error) {
	return call(s, func(k *kernel.Kernel) (bool, error) { return k.Cancel(sessionID), nil })
}

// Events returns a session's stored events with seq > after (0 for all).
func (s *Service) Events(sessionID string, after int64) ([]llm.Event, error) {
	return list(s, func(k *kernel.Kernel) ([]llm.Event, error) {
		if after < 0 {
			return nil, invalid("after is %d: give the last seq seen, 0 for all", after)
		}
		if _, err := k.Session(s.ctx, sessionID); err != nil {
			return nil, err
		}
		return k.Events(s.ctx, sessionID, after)
	})
}

// Runs returns a session's runs, oldest first.
func (s *Service) Runs(sessionID string) ([]kernel.Run, error) {
	return list(s, func(k *kernel.Kernel) ([]kernel.Run, error) { return k.Runs(s.ctx, sessionID) })
}

// Calls returns a run's tool calls.
func (s *Service) Calls(runID string) ([]kernel.Call, error) {
	return list(s, func(k *kernel.Kernel) ([]kernel.Call, error) { return k.Calls(s.ctx, runID) })
}

// Messages returns a session's canonical history.
func (s *Service) Messages(sessionID string) ([]kernel.Message, error) {
	return list(s, func(k *kernel.Kernel) ([]kernel.Message, error) { return k.Messages(s.ctx, sessionID) })
}

// Changes returns a session's file changes, oldest first.
func (s *Service) Changes(sessionID string) ([]kernel.Change, error) {
	return list(s, func(k *kernel.Kernel) ([]kernel.Change, error) { return k.Changes(s.ctx, sessionID) })
}

// Change returns one file change.
func (s *Service) Change(id string) (kernel.Change, error) {
	return call(s, func(k *kernel.Kernel) (kernel.Change, error) { return k.Change(s.ctx, id) })
}

// Diff returns the unified diff of one change (or a line saying why there
// is none).
func (s *Service) Diff(changeID string) (string, error) {
	return call(s, func(k *kernel.Kernel) (string, error) { return k.Diff(s.ctx, changeID) })
}

// Revert undoes file changes: some changes (optionally some hunks of one),
// a whole run, or everything after a change. When a file changed since,
// nothing is changed and the conflicts are returned, unless Force.
func (s *Service) Revert(req kernel.RevertRequest) (kernel.RevertResult, error) {
	return call(s, func(k *kernel.Kernel) (kernel.RevertResult, error) { return k.Revert(s.ctx, req) })
}

// PendingApprovals lists the requests waiting for an answer in a session
// ("" for every session).
func (s *Service) PendingApprovals(sessionID string) ([]kernel.Approval, error) {
	return list(s, func(k *kernel.Kernel) ([]kernel.Approval, error) { return k.PendingApprovals(sessionID), nil })
}

// Answer answers a pending approval request; the first answer wins.
func (s *Service) Answer(approvalID string, a kernel.Answer) error {
	return do(s, func(k *kernel.Kernel) error { return k.Answer(approvalID, a) })
}

// PendingElicitations lists the MCP servers' questions waiting for the
// user in a session ("" for every session), oldest first.
func (s *Service) PendingElicitations(sessionID string) ([]event.MCPElicitationData, error) {
	return list(s, func(k *kernel.Kernel) ([]event.MCPElicitationData, error) {
		return k.PendingElicitations(sessionID), nil
	})
}

// AnswerElicitation answers an MCP server's question (an mcp.elicitation
// notice): accept with the form's values, decline or cancel. Values that
// do not fit the form are refused, each field at fault named.
func (s *Service) AnswerElicitation(elicitationID string, a kernel.ElicitAnswer) error {
	return do(s, func(k *kernel.Kernel) error { return k.AnswerElicitation(elicitationID, a) })
}

// Approvals returns a session's approval history.
func (s *Service) Approvals(sessionID string) ([]kernel.ApprovalRecord, error) {
	return list(s, func(k *kernel.Kernel) ([]kernel.ApprovalRecord, error) { return k.Approvals(s.ctx, sessionID) })
}

// SetMode switches a session's approval mode (manual, auto, full-access),
// also during a run; the switch is recorded in the session's events.
func (s *Service) SetMode(sessionID, mode string) error {
	return do(s, func(k *kernel.Kernel) error { return k.SetMode(s.ctx, sessionID, mode) })
}

// DefaultMode returns the approval mode new sessions start in (manual,
// auto or full_access).
func (s *Service) DefaultMode() (string, error) {
	return call(s, func(k *kernel.Kernel) (string, error) {
		m, err := k.DefaultMode(s.ctx)
		return string(m), err
	})
}

// SetDefaultMode changes the approval mode new sessions start in.
func (s *Service) SetDefaultMode(mode string) error {
	return do(s, func(k *kernel.Kernel) error { return k.SetDefaultMode(s.ctx, mode) })
}

// Settings returns every setting by key.
func (s *Service) Settings() (map[string]string, error) {
	return call(s, func(k *kernel.Kernel) (map[string]string, error) {
		m, err := k.Settings(s.ctx)
		if m == nil && err == nil {
			m = map[string]string{}
		}
		return m, err
	})
}

// SettingList returns every setting a person can set (settings.Table),
// with its label, doc, default and the value in force, in the table's
// order: the settings view renders its fields from it.
func (s *Service) SettingList() ([]settings.Entry, error) {
	return list(s, func(k *kernel.Kernel) ([]settings.Entry, error) {
		all, err := k.Settings(s.ctx)
		if err != nil {
			return nil, err
		}
		return settings.List(all), nil
	})
}

// SetSetting changes one setting (foya settings list says what each takes).
func (s *Service) SetSetting(key, value string) error {
	return do(s, func(k *kernel.Kernel) error { return k.SetSetting(s.ctx, key, value) })
}

// Providers lists the provider profiles (keys never included).
func (s *Service) Providers() ([]profiles.Provider, error) {
	return list(s, func(k *kernel.Kernel) ([]profiles.Provider, error) { return k.Profiles().List(s.ctx) })
}

// AddProvider adds a provider profile; its key goes to the system keyring
// (or a 0600 file where there is none).
func (s *Service) AddProvider(profile profiles.ProviderInput) (profiles.Provider, error) {
	return call(s, func(k *kernel.Kernel) (profiles.Provider, error) { return k.Profiles().Add(s.ctx, profile) })
}

// EditProvider changes some fields of a provider profile.
func (s *Service) EditProvider(name string, e profiles.ProviderEdit) (profiles.Provider, error) {
	return call(s, func(k *kernel.Kernel) (profiles.Provider, error) { return k.Profiles().Edit(s.ctx, name, e) })
}

// RemoveProvider removes a provider profile and its key.
func (s *Service) RemoveProvider(name string) error {
	return do(s, func(k *kernel.Kernel) error { return k.Profiles().Remove(s.ctx, name) })
}

// TestProvider checks a provider profile: its model list, then one tiny
// streamed request. A server that is down or refuses the key is a result,
// not an error.
func (s *Service) TestProvider(name string) (profiles.ProviderCheck, error) {
	return call(s, func(k *kernel.Kernel) (profiles.ProviderCheck, error) { return k.Profiles().Test(s.ctx, name) })
}

// SetDefaultProvider makes a profile the default one.
func (s *Service) SetDefaultProvider(name string) error {
	return do(s, func(k *kernel.Kernel) error { return k.Profiles().SetDefault(s.ctx, name) })
}

// BackgroundCommands lists a session's background commands, oldest first.
func (s *Service) BackgroundCommands(sessionID string) ([]kernel.BackgroundCommand, error) {
	return list(s, func(k *kernel.Kernel) ([]kernel.BackgroundCommand, error) {
		return k.BackgroundCommands(sessionID), nil
	})
}

// KillBackground ends a background command with its whole process tree.
func (s *Service) KillBackground(sessionID, id string) (kernel.BackgroundCommand, error) {
	return call(s, func(k *kernel.Kernel) (kernel.BackgroundCommand, error) { return k.KillBackground(sessionID, id) })
}

// ProjectRules returns a folder's .foya/permissions.json and whether the
// user approved its exact content.
func (s *Service) ProjectRules(workdir string) (kernel.ProjectRules, error) {
	return call(s, func(k *kernel.Kernel) (kernel.ProjectRules, error) { return k.ProjectRules(s.ctx, workdir) })
}

// TrustProjectRules approves a project's rules file, as shown (hash is the
// sha256 ProjectRules returned; a file changed since is refused).
func (s *Service) TrustProjectRules(workdir, hash string) error {
	return do(s, func(k *kernel.Kernel) error { return k.TrustProjectRules(s.ctx, workdir, hash) })
}

// RevokeProjectRules withdraws the approval of a project's rules file.
func (s *Service) RevokeProjectRules(workdir string) error {
	return do(s, func(k *kernel.Kernel) error { return k.RevokeProjectRules(s.ctx, workdir) })
}

// Hooks returns a folder's hooks files (the user's own and the project's
// .foya/hooks.json) and whether their hooks run (docs/hooks.md).
func (s *Service) Hooks(workdir string) (kernel.Hooks, error) {
	return call(s, func(k *kernel.Kernel) (kernel.Hooks, error) { return k.Hooks(s.ctx, workdir) })
}

// TrustProjectHooks approves a project's hooks file, as shown (hash is the
// sha256 Hooks returned; a file changed since is refused).
func (s *Service) TrustProjectHooks(workdir, hash string) error {
	return do(s, func(k *kernel.Kernel) error { return k.TrustProjectHooks(s.ctx, workdir, hash) })
}

// RevokeProjectHooks withdraws the approval of a project's hooks file.
func (s *Service) RevokeProjectHooks(workdir string) error {
	return do(s, func(k *kernel.Kernel) error { return k.RevokeProjectHooks(s.ctx, workdir) })
}
