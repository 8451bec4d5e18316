package shell

const rssChildEnv = "FOYA_SHELL_RSS_CHILD"

func rssChild() int { return 0 }
