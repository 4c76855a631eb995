package secrets_test

import (
	"encoding/base64"
	"maps"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/secrets"
)

// Test secrets are assembled at run time from a prefix and generated random
// characters, so that this file holds no string a secret scanner (this one,
// or a forge's push protection) would report, while the secrets tested keep
// the exact shapes of real ones.
const (
	upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lower  = "abcdefghijklmnopqrstuvwxyz"
	digits = "0123456789"
	alnum  = upper + lower + digits
	b64    = alnum + "+/"
	b64url = alnum + "-_"
	hexLow = "0123456789abcdef"
)

// gen returns deterministic random strings, the same on every run, so that a
// failure can be reproduced.
type gen struct{ r *rand.Rand }

func newGen(seed uint64) gen { return gen{rand.New(rand.NewPCG(seed, 0x5ec2e75))} }

// s returns n characters drawn from alphabet.
func (g gen) s(alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[g.r.IntN(len(alphabet))]
	}
	return string(b)
}

// jwtToken returns a signed-looking JWT with the given claims.
func (g gen) jwtToken(claims string) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + enc([]byte(claims)) + "." + g.s(b64url, 43)
}

// pemBlock returns an armored private key of the given kind ("RSA ",
// "OPENSSH ", "" …) with random key material.
func (g gen) pemBlock(kind string) string {
	var b strings.Builder
	b.WriteString(privateKeyHeader(kind) + "\n")
	for range 6 {
		b.WriteString(g.s(b64, 64) + "\n")
	}
	b.WriteString("-----END " + kind + "PRIVATE" + " KEY-----")
	return b.String()
}

func privateKeyHeader(kind string) string { return "-----BEGIN " + kind + "PRIVATE" + " KEY-----" }

// ruleCase is some text and the rules expected to report it, in order.
type ruleCase struct {
	name    string
	content string
	want    []string // rule IDs in the order of the findings; nil for none
}

// ruleCases returns true-positive and true-negative cases for every rule,
// keyed by rule ID.
func ruleCases() map[string][]ruleCase {
	g := newGen(1)
	awsID := "AKIA" + g.s(upper+digits, 16)
	awsKey := g.s(b64, 40)
	ghp := "ghp_" + g.s(alnum, 36)
	fineGrained := "github_pat_" + g.s(alnum, 22) + "_" + g.s(alnum, 59)
	slackBot := "xoxb-" + g.s(digits, 12) + "-" + g.s(digits, 13) + "-" + g.s(alnum, 24)
	slackUser := "xoxp-" + g.s(digits, 12) + "-" + g.s(digits, 12) + "-" + g.s(digits, 13) + "-" + g.s(hexLow, 32)
	webhook := "https://hooks.slack.com/services/T" + g.s(upper+digits, 8) + "/B" + g.s(upper+digits, 10) + "/" + g.s(alnum, 24)
	googleKey := "AIza" + "Sy" + g.s(b64url, 33)
	openaiProj := "sk-proj-" + g.s(b64url, 74) + "T3Blbk" + "FJ" + g.s(b64url, 74)
	openaiLegacy := "sk-" + g.s(alnum, 20) + "T3Blbk" + "FJ" + g.s(alnum, 20)
	openaiSvc := "sk-svcacct-" + g.s(alnum, 48)
	anthropic := "sk-ant-api03-" + g.s(b64url, 93) + "AA"
	jwtTok := g.jwtToken(`{"sub":"1234567890","name":"Jane Roe","iat":1700000000}`)
	pw := g.s(alnum, 20)
	genericVal := g.s(alnum, 32)
	hexVal := g.s(hexLow, 40)

	cases := map[string][]ruleCase{
		"aws-access-key-id": {
			{"reports a key ID in an INI assignment", "aws_access_key_id = " + awsID, []string{"aws-access-key-id"}},
			{"reports a key ID in prose", "I used " + awsID + " for the upload.", []string{"aws-access-key-id"}},
			{"reports a temporary ASIA key ID", "key: ASIA" + awsID[4:], []string{"aws-access-key-id"}},
			{"skips the example key ID from AWS documentation", "aws_access_key_id = AKIA" + "IOSFODNN7" + "EXAMPLE", nil},
			{"skips a key ID of x placeholders", "AKIA" + strings.Repeat("X", 16), nil},
			{"skips a key ID glued to a longer word", "X" + awsID + "Z", nil},
			{"skips a key ID one character short", awsID[:19], nil},
			{"skips lower case", strings.ToLower(awsID), nil},
		},
		"aws-secret-access-key": {
			{"reports a secret key in an INI assignment", "aws_secret_access_key = " + awsKey, []string{"aws-secret-access-key"}},
			{"reports a secret key in quoted YAML", `AWS_SECRET_ACCESS_KEY: "` + awsKey + `"`, []string{"aws-secret-access-key"}},
			{"reports a secret key in JSON", `{"awsSecretAccessKey": "` + awsKey + `"}`, []string{"aws-secret-access-key"}},
			{"reports a secret key named secret first", "secret_key_aws=" + awsKey, []string{"aws-secret-access-key"}},
			{"skips the example secret key from AWS documentation", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLE" + "KEY", nil},
			{"skips a 40-character value not named after AWS", "aws_region = " + awsKey, nil},
			{"skips a variable reference", "aws_secret_access_key = ${AWS_SECRET_ACCESS_KEY}", nil},
			{"skips prose about the secret key", "Rotate the AWS secret access key every 90 days.", nil},
		},
		"github-token": {
			{"reports a classic personal access token", "GITHUB_TOKEN=" + ghp, []string{"github-token"}},
			{"reports an OAuth token", "token " + "gho_" + ghp[4:], []string{"github-token"}},
			{"reports an app installation token", "`ghs_" + ghp[4:] + "`", []string{"github-token"}},
			{"reports a fine-grained personal access token", "export GH_TOKEN=" + fineGrained, []string{"github-token"}},
			{"skips a token one character short", "ghp_" + ghp[4:39], nil},
			{"skips a placeholder token", "ghp_" + strings.Repeat("x", 36), nil},
			{"skips a sequential placeholder", "ghp_" + "1234567890" + "abcdefghijklmnopqrstuvwxyz", nil},
			{"skips prose about the prefix", "Classic tokens start with ghp_ and fine-grained ones with github_pat_.", nil},
		},
		"gitlab-token": {
			{"reports a personal access token", "GITLAB_TOKEN=glpat-" + g.s(b64url, 20), []string{"gitlab-token"}},
			{"reports a token in a header", "PRIVATE-TOKEN: glpat-" + g.s(alnum, 20), []string{"gitlab-token"}},
			{"skips a token one character short", "glpat-" + g.s(alnum, 19), nil},
			{"skips a placeholder token", "glpat-" + strings.Repeat("x", 20), nil},
		},
		"slack-token": {
			{"reports a bot token", "SLACK_BOT_TOKEN=" + slackBot, []string{"slack-token"}},
			{"reports a user token", "slack: " + slackUser, []string{"slack-token"}},
			{"skips a placeholder bot token", "SLACK_BOT_TOKEN=xoxb-your-bot-token-here", nil},
			{"skips prose about the prefix", "Bot tokens begin with xoxb- and user tokens with xoxp-.", nil},
		},
		"slack-webhook": {
			{"reports a webhook URL", "webhook: " + webhook, []string{"slack-webhook"}},
			{"skips the placeholder from Slack's documentation", "https://hooks.slack.com/services/T" + "00000000/B00000000/" + strings.Repeat("X", 24), nil},
			{"skips the bare endpoint", "Post to https://hooks.slack.com/services/ with JSON.", nil},
		},
		"stripe-key": {
			{"reports a live secret key", "STRIPE_SECRET_KEY=sk_live_" + g.s(alnum, 24), []string{"stripe-key"}},
			{"reports a long live restricted key", "stripe: rk_live_" + g.s(alnum, 99), []string{"stripe-key"}},
			{"skips a test mode key mentioned in prose", "Use sk_test_" + g.s(alnum, 24) + " locally.", nil},
			{"skips a placeholder key", "sk_live_" + strings.Repeat("x", 24), nil},
			{"skips a live key too short to be one", "sk_live_" + g.s(alnum, 23), nil},
		},
		"google-api-key": {
			{"reports an API key", "GOOGLE_API_KEY=" + googleKey, []string{"google-api-key"}},
			{"reports an API key in a URL", "https://maps.googleapis.com/maps/api/js?key=" + googleKey, []string{"google-api-key"}},
			{"skips a key one character short", "key " + googleKey[:38], nil},
			{"skips a placeholder key", "AIza" + strings.Repeat("X", 35), nil},
		},
		"openai-key": {
			{"reports a project key", "OPENAI_API_KEY=" + openaiProj, []string{"openai-key"}},
			{"reports a legacy key", "openai.api_key = '" + openaiLegacy + "'", []string{"openai-key"}},
			{"reports a service account key without the marker", "key " + openaiSvc, []string{"openai-key"}},
			{"skips kebab-case words", "We use sk-learn-compatible-estimators-and-pipelines-2024 here.", nil},
			{"skips a placeholder key", "OPENAI_API_KEY=sk-your-openai-api-key-goes-here", nil},
			{"skips an Anthropic key", "x " + anthropic, []string{"anthropic-key"}},
			{"skips a word ending in sk", "task-" + g.s(alnum, 40), nil},
		},
		"anthropic-key": {
			{"reports an API key", "ANTHROPIC_API_KEY=" + anthropic, []string{"anthropic-key"}},
			{"reports an API key in prose", "The key " + anthropic + " was revoked.", []string{"anthropic-key"}},
			{"skips a placeholder key", "ANTHROPIC_API_KEY=sk-ant-api03-your-key-here-please", nil},
			{"skips prose about the prefix", "Anthropic keys start with sk-ant-api03- and are long.", nil},
		},
		"private-key": {
			{"reports an RSA key", "Key:\n\n" + g.pemBlock("RSA "), []string{"private-key"}},
			{"reports a PKCS #8 key", g.pemBlock(""), []string{"private-key"}},
			{"reports an OpenSSH key", g.pemBlock("OPENSSH "), []string{"private-key"}},
			{"reports an encrypted key", g.pemBlock("ENCRYPTED "), []string{"private-key"}},
			{"reports a PGP key block", privateKeyHeader("PGP ")[:len(privateKeyHeader("PGP "))-5] + " BLOCK-----\nVersion: GnuPG v2\n\n" + g.s(b64, 64) + "\n", []string{"private-key"}},
			{"reports a key with escaped newlines in JSON", `{"private_key": "` + privateKeyHeader("") + `\n` + g.s(b64, 64) + `\n-----END ` + "PRIVATE" + ` KEY-----\n"}`, []string{"private-key"}},
			{"reports an indented key in a YAML block", "key: |\n  " + strings.ReplaceAll(g.pemBlock("EC "), "\n", "\n  "), []string{"private-key"}},
			{"skips a header quoted in prose", "The file starts with `" + privateKeyHeader("RSA ") + "`.", nil},
			{"skips a key elided with dots", privateKeyHeader("OPENSSH ") + "\n...\n-----END OPENSSH " + "PRIVATE" + " KEY-----", nil},
			{"skips a public key", "-----BEGIN PUBLIC KEY-----\n" + g.s(b64, 64) + "\n-----END PUBLIC KEY-----", nil},
		},
		"jwt": {
			{"reports a token in a header", "Authorization: Bearer " + jwtTok, []string{"jwt"}},
			{"reports a token in prose", "the session cookie was " + jwtTok + ".", []string{"jwt"}},
			{"skips random text that starts like a token", "eyJ" + g.s(alnum, 20) + ".eyJ" + g.s(alnum, 20) + "." + g.s(alnum, 20), nil},
			{"skips a token without a signature", jwtTok[:strings.LastIndex(jwtTok, ".")], nil},
		},
		"password-in-url": {
			{"reports a database URL", "DATABASE_URL=postgres://app:" + pw + "@db.internal:5432/app", []string{"password-in-url"}},
			{"reports a git remote with credentials", "git clone https://deploy:" + pw + "@git.acme-corp.io/team/repo.git", []string{"password-in-url"}},
			{"reports a percent-encoded password", "amqp://worker:%40" + pw + "@mq.internal:5672/", []string{"password-in-url"}},
			{"reports a password without a user", "redis://:" + pw + "@cache:6379/0", []string{"password-in-url"}},
			{"skips a braced variable", "postgres://app:${DB_PASSWORD}@db:5432/app", nil},
			{"skips a plain variable", "postgres://app:$DB_PASSWORD@db:5432/app", nil},
			{"skips an angle-bracketed placeholder", "mongodb+srv://admin:<password>@cluster0.mongodb.net/", nil},
			{"skips a masked password", "postgres://app:****@db/app", nil},
			{"skips x placeholders", "postgres://app:xxx@db/app", nil},
			{"skips the word password", "https://user:password@auth.acme.io/", nil},
			{"skips the word pass", "ftp://user:pass@files.acme.io/", nil},
			{"skips changeme", "amqp://guest:changeme@rabbit:5672/", nil},
			{"skips example", "smtp://mailer:example@mail:25", nil},
			{"skips a password equal to the user", "postgres://postgres:postgres@localhost:5432/postgres", nil},
			{"skips a host reserved for documentation", "https://abc:" + pw + "@api.example.com/v1", nil},
			{"skips a format verb", `fmt.Sprintf("postgres://app:%s@db/app", pw)`, nil},
			{"skips a URL with a user and no password", "ssh://git@github.com/org/repo.git", nil},
			{"skips a URL with a port", "https://localhost:8080/login?next=@home", nil},
		},
		"generic-secret-assignment": {
			{"reports a quoted API key", `api_key = "` + genericVal + `"`, []string{"generic-secret-assignment"}},
			{"reports an environment variable", "DB_PASSWORD=" + genericVal, []string{"generic-secret-assignment"}},
			{"reports a YAML client secret", "client_secret: " + genericVal, []string{"generic-secret-assignment"}},
			{"reports a JSON auth token", `{"authToken": "` + genericVal + `"}`, []string{"generic-secret-assignment"}},
			{"reports a Go constant", `const signingKey = "` + genericVal + `"`, []string{"generic-secret-assignment"}},
			{"reports a Go short variable declaration", `webhookSecret := "` + genericVal + `"`, []string{"generic-secret-assignment"}},
			{"reports a hex secret", "SECRET_KEY_BASE: " + hexVal, []string{"generic-secret-assignment"}},
			{"reports a human password with symbols", `password: "Tr0ub4dor&3!Horse#9"`, []string{"generic-secret-assignment"}},
			{"reports a credential in a shell flag", "deploy --credential=" + genericVal, []string{"generic-secret-assignment"}},
			{"reports a value after Markdown emphasis", "**Password:** " + genericVal, []string{"generic-secret-assignment"}},
			{"reports a value after an emphasized name", "**API key**: `" + genericVal + "`", []string{"generic-secret-assignment"}},
			{"reports two assignments on a line", "token=" + genericVal + ", secret=" + hexVal, []string{"generic-secret-assignment", "generic-secret-assignment"}},
			{"skips a GitHub Actions secret reference", "token: ${{ secrets.GITHUB_TOKEN }}", nil},
			{"skips a quoted Actions secret reference", `token: "${{ secrets.DEPLOY_TOKEN }}"`, nil},
			{"skips a placeholder in angle brackets", "password: <your password here>", nil},
			{"skips a Go constructor call", "tokenizer := NewTokenizer()", nil},
			{"skips a longer Go constructor call", "tokenizer := NewTokenizerWithOptions(opts)", nil},
			{"skips a Go environment lookup", `apiKey := os.Getenv("OPENAI_API_KEY")`, nil},
			{"reports a base64 value starting with a slash", "aws_session_token = /" + g.s(b64, 59), []string{"generic-secret-assignment"}},
			{"skips a Go field access", "token: cfg.Auth.RefreshTokenSecret", nil},
			{"skips a field path with digits", "secret := c.CredentialSource.IMDSv2SessionTokenURL", nil},
			{"skips an algorithm name", `KeyExchangeCurve25519 = "curve25519-sha256@libssh.org"`, nil},
			{"skips a constant expression", "EncapsulationKeySize1024 = k1024*encodingSize12 + 32", nil},
			{"skips a pointer dereference", "timeForEncryptionKey = *params.EncryptionTime", nil},
			{"skips an absolute file path", "key_file: /etc/ssl/private/server2024.key", nil},
			{"skips a relative file path", "secrets_file: config/secrets/prod-2024.yaml", nil},
			{"skips a URL", "auth_url: https://login.example.com/oauth2/v2.0/token", nil},
			{"skips an environment variable name", "token_env: DEPLOY_TOKEN_V2_PRODUCTION", nil},
			{"skips a shell variable", "export API_KEY=$OPENAI_API_KEY_2024", nil},
			{"skips a short value", "token: abc123", nil},
			{"skips a low-entropy value", "secret: aaaabbbbaaaabbbb1111", nil},
			{"skips a passphrase with spaces", `password = "correct horse battery staple 42"`, nil},
			{"skips a bearer header with a variable", "Authorization: Bearer $TOKEN", nil},
			{"skips a public key", `public_key: "` + g.s(b64, 44) + `"`, nil},
			{"skips a key ID", "kms_key_id: " + g.s(hexLow, 8) + "-" + g.s(hexLow, 4) + "-" + g.s(hexLow, 4) + "-" + g.s(hexLow, 4) + "-" + g.s(hexLow, 12), nil},
			{"skips a number of tokens", "max_tokens: 4096", nil},
			{"skips the author field", "author: Jane Roe <jane.roe@example.com>", nil},
			{"skips a sentence about tokens", "The token is refreshed every 15 minutes by the auth middleware; see keys.go.", nil},
			{"skips a sentence with a colon", "Key insight: rotating credentials weekly (see ADR-0042) cut incidents by 30%.", nil},
			{"skips a comparison", `if token == "` + genericVal + `" {`, nil},
			{"skips a Markdown link", "See [auth: tokens](docs/auth/tokens-2024.md) for details.", nil},
			{"skips a placeholder value", "API_KEY=your-api-key-goes-here-1234", nil},
		},
	}
	maps.Copy(cases, newRuleCases())
	maps.Copy(cases, evalRuleCases(cases))
	return cases
}

func TestRules(t *testing.T) {
	cases := ruleCases()
	kebab := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	seen := map[string]bool{}
	for _, r := range secrets.Rules() {
		if !kebab.MatchString(r.ID) {
			t.Errorf("rule ID %q is not kebab-case", r.ID)
		}
		if seen[r.ID] {
			t.Errorf("rule ID %q is listed twice", r.ID)
		}
		seen[r.ID] = true
		if r.Description == "" {
			t.Errorf("rule %q has no description", r.ID)
		}
		var pos, neg bool
		for _, c := range cases[r.ID] {
			pos = pos || slices.Contains(c.want, r.ID)
			neg = neg || !slices.Contains(c.want, r.ID)
		}
		if !pos || !neg {
			t.Errorf("rule %q lacks a true-positive or a true-negative case", r.ID)
		}
	}
	for id := range cases {
		if !seen[id] {
			t.Errorf("cases for unknown rule %q", id)
		}
	}
}

func TestRulesReturnsACopy(t *testing.T) {
	r := secrets.Rules()
	r[0].ID = "changed"
	if secrets.Rules()[0].ID == "changed" {
		t.Error("changing the result of Rules changed the rules")
	}
}

func TestScanRules(t *testing.T) {
	s, err := secrets.NewScanner(secrets.Allow{})
	if err != nil {
		t.Fatal(err)
	}
	for id, cases := range ruleCases() {
		for _, c := range cases {
			t.Run(id+"/"+c.name, func(t *testing.T) {
				var got []string
				for _, f := range s.Scan("memory.md", []byte(c.content)) {
					got = append(got, f.Rule)
				}
				if !slices.Equal(got, c.want) {
					t.Errorf("Scan(%q) rules = %q, want %q", c.content, got, c.want)
				}
			})
		}
	}
}

// TestScanSecretBounds checks that each rule reports the secret itself, not
// the key or the text around it.
func TestScanSecretBounds(t *testing.T) {
	g := newGen(2)
	ghp := "ghp_" + g.s(alnum, 36)
	pw := g.s(alnum, 20)
	val := g.s(alnum, 32)
	awsKey := g.s(b64, 40)
	tests := []struct {
		name   string
		line   string
		secret string
	}{
		{"token after a key", "GITHUB_TOKEN=" + ghp + " # deploy", ghp},
		{"URL password without user or host", "postgres://app:" + pw + "@db/app", pw},
		{"quoted generic value without quotes", `"api_key": "` + val + `",`, val},
		{"bare generic value up to the comma", "secret=" + val + ",next=1", val},
		{"AWS secret key without quotes", `aws_secret_access_key: "` + awsKey + `"`, awsKey},
		{"private key header", "  " + privateKeyHeader("RSA ") + "\n" + g.s(b64, 64), privateKeyHeader("RSA ")},
	}
	s, _ := secrets.NewScanner(secrets.Allow{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := s.Scan("m.md", []byte(tt.line))
			if len(fs) != 1 {
				t.Fatalf("Scan(%q) = %v, want one finding", tt.line, fs)
			}
			f := fs[0]
			if want := strings.Index(tt.line, tt.secret) + 1; f.Column != want {
				t.Errorf("Column = %d, want %d", f.Column, want)
			}
			if want := tt.secret[:4] + strings.Repeat("*", len(tt.secret)-4); f.Redacted != want {
				t.Errorf("Redacted = %q, want %q", f.Redacted, want)
			}
		})
	}
}

// TestScanMoreSpecificRuleWins checks that a secret matched by a vendor rule
// and by the generic rule is reported once, by the vendor rule.
func TestScanMoreSpecificRuleWins(t *testing.T) {
	g := newGen(3)
	tests := []struct {
		name    string
		content string
		want    string
	}{
		{"GitHub token in a token variable", "GITHUB_TOKEN=" + "ghp_" + g.s(alnum, 36), "github-token"},
		{"AWS secret key in a key variable", "aws_secret_access_key=" + g.s(b64, 40), "aws-secret-access-key"},
		{"JWT in a token field", "id_token: " + g.jwtToken(`{"sub":"42"}`), "jwt"},
		{"GitHub token as a URL password", "https://x-access-token:" + "ghs_" + g.s(alnum, 36) + "@github.com/o/r.git", "github-token"},
		{"Stripe key in a secret variable", `stripe_secret = "` + "sk_live_" + g.s(alnum, 24) + `"`, "stripe-key"},
	}
	s, _ := secrets.NewScanner(secrets.Allow{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := s.Scan("m.md", []byte(tt.content))
			if len(fs) != 1 || fs[0].Rule != tt.want {
				t.Errorf("Scan(%q) = %v, want one %s finding", tt.content, fs, tt.want)
			}
		})
	}
}

func TestPrivateKeyFingerprintCoversTheKey(t *testing.T) {
	g := newGen(4)
	s, _ := secrets.NewScanner(secrets.Allow{})
	a := s.Scan("a.md", []byte(g.pemBlock("RSA ")))
	b := s.Scan("b.md", []byte(g.pemBlock("RSA ")))
	if len(a) != 1 || len(b) != 1 {
		t.Fatalf("findings = %v, %v; want one each", a, b)
	}
	if a[0].Fingerprint == b[0].Fingerprint {
		t.Error("two different RSA keys have the same fingerprint; allowing one would allow both")
	}
	key := g.pemBlock("EC ")
	c := s.Scan("c.md", []byte(key))
	d := s.Scan("d.md", []byte("# Notes\n\n"+strings.ReplaceAll(key, "\n", "\r\n")))
	if len(c) != 1 || len(d) != 1 || c[0].Fingerprint != d[0].Fingerprint {
		t.Errorf("the same key moved and with CRLF line endings has fingerprints %v and %v, want equal", c, d)
	}
}

// TestRulesAreDocumented checks that docs/SECRETS-RULES.md lists every
// rule with its description, so that the reference stays current.
func TestRulesAreDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/SECRETS-RULES.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range secrets.Rules() {
		if row := "| `" + r.ID + "` | " + r.Description + " |"; !strings.Contains(string(b), row) {
			t.Errorf("docs/SECRETS-RULES.md lacks the row %s", row)
		}
	}
}
