package secrets

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
)

// vendorFormat is a token format a vendor publishes: a fixed prefix and a
// random part. Gitleaks' rule list maps most of them; the shapes are public
// facts of each vendor's documentation.
type vendorFormat struct {
	id, desc string
	prefixes []string // anchors; the random part starts after the first
	re       string
}

var vendorFormats = []vendorFormat{
	{"sendgrid-key", "SendGrid API key", []string{"SG."}, `\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b`},
	{"digitalocean-token", "DigitalOcean token", []string{"dop_v1_", "doo_v1_", "dor_v1_"}, `\bdo[opr]_v1_[a-f0-9]{64}\b`},
	{"shopify-token", "Shopify access token or shared secret", []string{"shpat_", "shpca_", "shppa_", "shpss_"}, `\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b`},
	{"mailgun-key", "Mailgun API key", []string{"key-"}, `\bkey-[a-f0-9]{32}\b`},
	{"discord-webhook", "Discord webhook URL", []string{"/api/webhooks/"}, `discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/[A-Za-z0-9_-]{60,68}`},
	{"telegram-bot-token", "Telegram bot token", []string{":AA"}, `\b[0-9]{8,10}:AA[0-9A-Za-z_-]{33}\b`},
	{"twilio-api-key", "Twilio API key", []string{"SK"}, `\bSK[0-9a-f]{32}\b`},
	{"npm-token", "npm access token", []string{"npm_"}, `\bnpm_[A-Za-z0-9]{36}\b`},
	{"pypi-token", "PyPI upload token", []string{"pypi-AgEIcHlwaS5vcmc"}, `\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}`},
	{"huggingface-token", "Hugging Face access token", []string{"hf_"}, `\bhf_[A-Za-z]{34}\b`},
	{"azure-storage-key", "Azure storage account key", []string{"AccountKey="}, `AccountKey=[A-Za-z0-9+/]{86}==`},
	{"square-token", "Square access token or secret", []string{"sq0atp-", "sq0csp-", "EAAA"}, `\b(?:sq0atp-[0-9A-Za-z_-]{22}|sq0csp-[0-9A-Za-z_-]{43}|EAAA[A-Za-z0-9_-]{60})\b`},
	{"linear-key", "Linear API key", []string{"lin_api_"}, `\blin_api_[A-Za-z0-9]{40}\b`},
	{"postman-key", "Postman API key", []string{"PMAK-"}, `\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b`},
	{"doppler-token", "Doppler token", []string{"dp.pt."}, `\bdp\.pt\.[A-Za-z0-9]{43}\b`},
	{"pulumi-token", "Pulumi access token", []string{"pul-"}, `\bpul-[a-f0-9]{40}\b`},
	{"grafana-token", "Grafana service account or cloud token", []string{"glsa_", "glc_"}, `\b(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,400}={0,2})`},
	{"newrelic-key", "New Relic user API key", []string{"NRAK-"}, `\bNRAK-[A-Z0-9]{27}\b`},
	{"databricks-token", "Databricks access token", []string{"dapi"}, `\bdapi[a-f0-9]{32}(?:-[0-9])?\b`},
	{"vault-token", "HashiCorp Vault token", []string{"hvs.", "hvb."}, `\bhv[sb]\.[A-Za-z0-9_-]{90,}`},
	{"terraform-token", "Terraform Cloud token", []string{".atlasv1."}, `\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}`},
	{"age-secret-key", "age secret key", []string{"AGE-SECRET-KEY-1"}, `\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b`},
	{"mailchimp-key", "Mailchimp API key", []string{"-us"}, `\b[0-9a-f]{32}-us[0-9]{1,2}\b`},
	{"stripe-webhook-secret", "Stripe webhook signing secret", []string{"whsec_"}, `\bwhsec_[A-Za-z0-9]{32,}`},
	{"figma-token", "Figma personal access token", []string{"figd_"}, `\bfigd_[A-Za-z0-9_-]{40}\b`},
	{"flyio-token", "Fly.io access token", []string{"fo1_", "FlyV1 fm"}, `\b(?:fo1_[A-Za-z0-9_-]{43}|FlyV1 fm[12]_[A-Za-z0-9+/_=,-]{100,})`},
	{"alibaba-key-id", "Alibaba Cloud access key ID", []string{"LTAI"}, `\bLTAI[A-Za-z0-9]{20}\b`},
	{"google-oauth-secret", "Google OAuth client secret", []string{"GOCSPX-"}, `\bGOCSPX-[A-Za-z0-9_-]{28}\b`},
	{"supabase-token", "Supabase access token", []string{"sbp_"}, `\bsbp_[a-f0-9]{40}\b`},
	{"replicate-token", "Replicate API token", []string{"r8_"}, `\br8_[A-Za-z0-9]{37}\b`},
	{"groq-key", "Groq API key", []string{"gsk_"}, `\bgsk_[A-Za-z0-9]{52}\b`},
	{"slack-app-token", "Slack app-level token", []string{"xapp-"}, `\bxapp-[0-9]-[A-Z0-9]+-[0-9]+-[a-f0-9]{32,}\b`},
}

// vendorRules returns a rule for each vendor format, followed by the rules
// for secrets with no prefix of their own.
func vendorRules() []rule {
	var out []rule
	for _, v := range vendorFormats {
		out = append(out, rule{
			id: v.id, desc: v.desc, anchors: anchors(v.prefixes...),
			find: findRegexp(v.re), check: vendorToken(v.prefixes), rank: rankVendor,
		})
	}
	return append(out,
		rule{
			id:   "twilio-auth-token",
			desc: "Twilio auth token (32 hex characters on a line naming Twilio)",
			// Twilio's auth token has no prefix: the line must name Twilio.
			anchors: anchors("twilio", "Twilio", "TWILIO"),
			find:    findRegexp(`\b[a-f0-9]{32}\b`),
			check:   randomHex,
			rank:    rankVendor,
		},
		rule{
			id:      "password-in-prose",
			desc:    "password given in a sentence (\"the password is ...\")",
			anchors: anchors("password", "Password", "PASSWORD", "passphrase", "Passphrase"),
			find:    findProsePasswords,
			check:   prosePassword,
			rank:    rankGeneric,
		},
		rule{
			id:   "high-entropy-string",
			desc: "long random string of mixed case and digits standing alone",
			// Every random token of this length holds a digit.
			anchors: anchors("0", "1", "2", "3", "4", "5", "6", "7", "8", "9"),
			find:    findRegexp(`(?:^|[^A-Za-z0-9+/_=.:-])(?:(?i:h1:|sha1-|sha256-|sha384-|sha512-|base64,))?([A-Za-z0-9+=]{32,})`),
			check:   bareRandom,
			rank:    rankBare,
		},
	)
}

// vendorToken returns a check for a vendor token whose random part follows
// one of prefixes: a placeholder such as npm_xxxx… is not a token.
func vendorToken(prefixes []string) func(candidate) (string, bool) {
	return func(c candidate) (string, bool) {
		body := c.secret
		for _, p := range prefixes {
			// The random part follows the prefix, unless the prefix is a
			// suffix (Mailchimp's -us14).
			if i := strings.Index(body, p); i >= 0 && len(body)-i-len(p) >= 16 {
				body = body[i+len(p):]
				break
			}
		}
		return c.secret, !placeholder(body) && entropy(body) >= 3
	}
}

// randomHex accepts 32 hex characters that look random: with digits and
// letters, not a run or a placeholder.
func randomHex(c candidate) (string, bool) {
	s := c.secret
	return s, hasDigit(s) && strings.ContainsAny(s, "abcdef") && !placeholder(s) && entropy(s) >= 3.2
}

// prosePasswordRE is compiled on first use, as findRegexp does.
var prosePasswordRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:password|passphrase)\s+(?:is|was|is now|was set to|is set to|set to)\s+["'“‘]?([^\s"'”’]{8,64})`)
})

// findProsePasswords finds a password stated in a sentence: "the admin
// password is Tr0ub4dor&3x". Assignments (password: x) are the generic
// rule's.
func findProsePasswords(line []byte) []span {
	var spans []span
	for _, m := range prosePasswordRE().FindAllSubmatchIndex(line, -1) {
		end := m[3]
		for end > m[2] && strings.IndexByte(".,;:!?)", line[end-1]) >= 0 {
			end--
		}
		spans = append(spans, span{start: m[0], end: end, secretStart: m[2], secretEnd: end})
	}
	return spans
}

// prosePassword accepts a stated password that mixes letters with digits
// or symbols and is not a placeholder, a variable, a path or a word
// ("the password is stored in Vault" states no password).
func prosePassword(c candidate) (string, bool) {
	pw := c.secret
	if len(pw) < 8 || placeholder(pw) || strings.IndexByte("$%{<[(@/", pw[0]) >= 0 || strings.Contains(pw, "://") {
		return pw, false
	}
	letters := strings.ContainsFunc(pw, isLetter)
	return pw, letters && (hasDigit(pw) || hasSymbol(pw)) && !wordy(pw) && entropy(pw) >= 2.5
}

// bareRandom accepts a token standing alone that is random by every
// measure: 32 or more characters mixing upper case, lower case and digits,
// high in entropy, not words, not hex (commit IDs, digests) and not a
// checksum with its algorithm's label (h1:, sha256-).
func bareRandom(c candidate) (string, bool) {
	s := strings.TrimRight(c.secret, "=")
	if len(s) < 32 || isHex(strings.ReplaceAll(s, "-", "")) || placeholder(s) ||
		!hasDigit(s) || !hasUpper(s) || !hasLower(s) || wordy(s) {
		return c.secret, false
	}
	// Lines of an armored key are the private-key rule's.
	if bytes.Contains(c.rest[:min(len(c.rest), 8<<10)], []byte("-----END")) ||
		bytes.LastIndex(c.before, []byte("-----BEGIN")) > bytes.LastIndex(c.before, []byte("-----END")) {
		return c.secret, false
	}
	// A value assigned or compared (name: v, name = v, x == v) is the
	// generic rule's to judge by its name; this rule is for tokens in prose.
	line := c.before[bytes.LastIndexByte(c.before, '\n')+1:]
	if bytes.ContainsAny(line, ":=") {
		return c.secret, false
	}
	lower := bytes.ToLower(c.prefix)
	for _, label := range []string{"h1:", "sha1-", "sha256-", "sha384-", "sha512-", "base64,"} {
		if bytes.HasSuffix(lower, []byte(label)) {
			return c.secret, false
		}
	}
	return c.secret, entropy(s) >= 4.5
}
