package tests

import "foya/backend/kernel"

func kernelRun(sessionID, prompt string, h *harness, maxSteps int) kernel.RunOptions {
	return kernel.RunOptions{SessionID: sessionID, Prompt: prompt, Model: h.model(), MaxSteps: maxSteps}
}
