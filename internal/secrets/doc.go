// Package secrets finds credentials in text before it is committed.
//
// Memories are committed and pushed with the code, so a token pasted into one
// is published with the repository and stays in its history. The pre-commit
// hook and the save command run a [Scanner] over each memory and stop while it
// reports any [Finding].
//
// # Rules
//
// Every rule has a stable ID, listed with a description by [Rules]. Most
// rules match the fixed shape of one vendor's credential (GitHub, GitLab,
// AWS, Docker Hub, Sentry and about a hundred more), reported wherever it
// stands, in a sentence as well as after a name such as API_KEY. Others find
// credentials without a prefix where their vendor is named close before
// them (Datadog, Cloudflare), private keys, JWTs, passwords in URLs, HTTP
// Bearer and Basic credentials, secrets stated in a sentence, and long
// random strings standing alone. The generic-secret-assignment rule catches
// the rest: a
// random-looking value of at least 16 characters, with a Shannon entropy of
// at least 3.5 bits per character (3 for hex), assigned to a name such as
// apiKey, DB_PASSWORD or client-secret.
//
// A finding points at the secret itself: the token, the value of an
// assignment, the password of a URL, the BEGIN line of a private key. That
// text is also what allow patterns are matched against and, but for private
// keys, what the fingerprint covers.
//
// A scanner that cries wolf is soon switched off, so the rules skip what is
// plainly not a secret: template and variable references such as
// ${{ secrets.GITHUB_TOKEN }} or $DB_PASSWORD, placeholders such as
// <your token here>, xxxx or the example keys in AWS's documentation,
// passwords of hosts under example.com, names, file paths and code such as
// tokenizer := NewTokenizer() or cfg.Auth.Token, and private key headers
// without a key under them. Words such as "token" in prose trigger nothing
// by themselves. When a vendor rule and a less specific rule report the
// same text, only the vendor rule's finding is kept.
//
// # Allowing a false positive
//
// Some findings are not secrets: a revoked token kept as an example, a test
// fixture, a random-looking identifier. They can be allowed in four ways,
// from the narrowest to the broadest:
//
//   - Inline: a line containing the marker contextfs:allow-secret is not
//     reported. The marker may sit in any comment the file format has, such
//     as <!-- contextfs:allow-secret --> in Markdown or
//     # contextfs:allow-secret in YAML. It travels with the text and is
//     visible to reviewers.
//   - By fingerprint: [Allow].Fingerprints lists [Finding].Fingerprint
//     values. A fingerprint depends only on the rule and the secret, not on
//     the file or line, so it survives edits around the secret and allows that
//     one value wherever it appears. For a private key the fingerprint covers
//     the whole key, so allowing one key does not allow others.
//   - By pattern: [Allow].Patterns are regular expressions matched against
//     the secret text (not the whole line); a match anywhere in it allows the
//     finding. They suit families of known non-secrets, such as the IDs of a
//     test service.
//   - By path: [Allow].Paths are [path.Match] globs naming files that are
//     not scanned at all. A glob without a slash is also matched against the
//     file's base name, as in .gitignore.
package secrets
