package tests

import (
	"foya/backend/kernel"
	"foya/backend/tools"
)

func kernelRun(sessionID, prompt string, h *harness, maxSteps int) kernel.RunOptions {
	return kernel.RunOptions{SessionID: sessionID, Prompt: prompt, Model: h.model(), MaxSteps: maxSteps}
}

type kernelTool = tools.Tool
