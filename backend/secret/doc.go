// Package secret keeps secrets out of what commands get and what tools
// return: which environment variables a command does not inherit
// ([Filter], [LooksSecret], [Policy]), and the masking of known secret
// values in tool output before it is stored or sent to the model
// ([Masker]).
//
// Secrets in Foya's environment must reach neither commands, nor the
// model, nor the database. A variable is
// left out of a command's environment when a part of its name (between
// underscores) is or ends with KEY, TOKEN, SECRET, PASSWORD, PASSWD,
// PASSPHRASE, CREDENTIAL, PRIVATE, AUTH, SESSION or COOKIE (plural too),
// or is PASS, PWD, DSN, SIGNATURE, JWT or BEARER; when its name starts
// with a cloud or model provider's prefix (AWS_, AZURE_, GCP_, GOOGLE_,
// OPENAI_, ANTHROPIC_, OPENROUTER_, HF_, GITHUB_, GH_, GITLAB_ ...); when
// its value has the shape of a well-known credential (an OpenAI or GitHub
// token, an AWS access key ID, a PEM private key, a URL with a password);
// or when its value is a secret the caller knows (the provider's API key).
// A few names the rules would catch stay, because they hold no secret and
// programs need them: PWD, OLDPWD, SSH_AUTH_SOCK, DBUS_SESSION_BUS_ADDRESS,
// the XDG_SESSION_ variables, GIT_AUTHOR_NAME and a few more (an agent's or
// a bus's socket is a path; whether a command may reach it is the
// sandbox's business). The user's Policy adds names to drop and lets
// names through; a known secret never goes through.
//
// Masking replaces every value of at least [MinMasked] bytes of a
// credential-looking or denied variable, allowed or not, and every known
// secret, with "[secret NAME hidden]", in one pass (strings.Replacer),
// also in its JSON-escaped form so that JSON payloads can be masked as
// text. It cannot catch a secret the command transforms (base64, split in
// two): that is why the variables are left out in the first place.
//
// It imports only the standard library. Everything is safe for concurrent
// use.
package secret
