package api

import (
	"strings"

	"foya/backend/kernel"
)

// The composer's @-mentions: the files of a session's folder to pick
// from, and a message sent with the picked ones.

// WorkspaceFiles lists a session's folder for @-mentions: its files and
// folders, sorted, at most kernel.MaxWorkspaceFiles, without .git, ignored
// or hidden folders. A session whose folder is gone is unavailable.
func (s *Service) WorkspaceFiles(sessionID string) (kernel.WorkspaceFiles, error) {
	return call(s, func(k *kernel.Kernel) (kernel.WorkspaceFiles, error) {
		if err := need("sessionId", sessionID); err != nil {
			return kernel.WorkspaceFiles{}, err
		}
		return k.WorkspaceFiles(s.ctx, sessionID)
	})
}

// RunWithMentions is RunWithResources with files and folders of the
// session's folder mentioned in the message (@path, relative): each one's
// content, bounded as one read is, goes into the user message after it. A
// mentioned file that is gone fails at once (code invalid), starting
// nothing.
func (s *Service) RunWithMentions(sessionID, message string, resources []kernel.ResourceRef, files []string) (string, error) {
	if err := need("sessionId", sessionID); err != nil {
		return "", err
	}
	if strings.TrimSpace(message) == "" {
		return "", invalid("the message is empty: type what the agent should do")
	}
	return s.start(func(k *kernel.Kernel, started func(string)) error {
		_, err := k.Run(s.ctx, kernel.RunOptions{SessionID: sessionID, Prompt: message, Resources: resources, Files: files, Started: started})
		return err
	})
}
