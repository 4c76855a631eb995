package secrets_test

import (
	"encoding/base64"
	"os"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/secrets"
)

// corpusSecret is one realistic secret in the sentence a memory would hold
// it in; kind names the kind of secret, not the rule expected to find it.
type corpusSecret struct{ kind, text string }

// secretCorpus returns the recall corpus: realistic secrets of many kinds,
// assembled at run time (see gen) so that no real-looking secret is
// committed.
func secretCorpus() []corpusSecret {
	g := newGen(13)
	hex := func(n int) string { return g.s(hexLow, n) }
	age := "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
	return []corpusSecret{
		{"aws-access-key-id", "Deploy user key id: AKIA" + g.s(upper+digits, 16)},
		{"aws-access-key-id", "export AWS_ACCESS_KEY_ID=ASIA" + g.s(upper+digits, 16)},
		{"aws-secret", "aws_secret_access_key = " + g.s(alnum+"+/", 40)},
		{"aws-secret", "AWS_SECRET_ACCESS_KEY=" + g.s(alnum+"+/", 40)},
		{"github", "The bot uses ghp_" + g.s(alnum, 36) + " for releases."},
		{"github", "GH_TOKEN=github_pat_" + g.s(alnum+"_", 82)},
		{"gitlab", "CI pushes with glpat-" + g.s(alnum+"_-", 20)},
		{"slack-token", "SLACK_BOT=xoxb-" + g.s(digits, 11) + "-" + g.s(digits, 12) + "-" + g.s(alnum, 24)},
		{"slack-webhook", "Alerts post to https://hooks.slack.com/services/T" + g.s(upper+digits, 8) + "/B" + g.s(upper+digits, 8) + "/" + g.s(alnum, 24)},
		{"stripe", "Billing uses sk_live_" + g.s(alnum, 24)},
		{"stripe", "restricted key rk_live_" + g.s(alnum, 30)},
		{"google-api-key", "Maps key AIza" + g.s(alnum+"_-", 35)},
		{"openai", "OPENAI_API_KEY=sk-proj-" + g.s(alnum, 48)},
		{"anthropic", "ANTHROPIC_API_KEY=sk-ant-api03-" + g.s(alnum, 40)},
		{"private-key", g.pemBlock("RSA ")},
		{"private-key", g.pemBlock("OPENSSH ")},
		{"jwt", "Authorization: Bearer " + g.jwtToken(`{"sub":"1234567890","name":"svc"}`)},
		{"password-in-url", "DATABASE_URL=postgres://app:" + g.s(alnum, 18) + "@db.internal:5432/app"},
		{"password-in-url", "redis://default:" + g.s(alnum, 24) + "@cache.prod.internal:6379"},
		{"generic-assignment", "api_key: " + g.s(alnum, 32)},
		{"generic-assignment", `"client_secret": "` + g.s(alnum, 40) + `"`},
		{"sendgrid", "Mail goes out with SG." + g.s(alnum+"_-", 22) + "." + g.s(alnum+"_-", 43)},
		{"sendgrid", "SENDGRID_API_KEY=SG." + g.s(alnum+"_-", 22) + "." + g.s(alnum+"_-", 43)},
		{"digitalocean", "doctl auth init -t dop_v1_" + hex(64)},
		{"digitalocean", "The OAuth token is doo_v1_" + hex(64)},
		{"shopify", "Shopify admin token shpat_" + hex(32)},
		{"shopify", "shared secret shpss_" + hex(32)},
		{"mailgun", "Mailgun: key-" + hex(32)},
		{"mailgun", "MAILGUN_KEY=key-" + hex(32)},
		{"discord-webhook", "Deploy notices: https://discord.com/api/webhooks/" + g.s(digits, 18) + "/" + g.s(alnum+"_-", 68)},
		{"discord-webhook", "https://discordapp.com/api/webhooks/" + g.s(digits, 19) + "/" + g.s(alnum+"_-", 64)},
		{"telegram", "The alert bot token is " + g.s(digits, 10) + ":AA" + g.s(alnum+"_-", 33)},
		{"telegram", "TELEGRAM=" + g.s(digits, 9) + ":AA" + g.s(alnum+"_-", 33)},
		{"twilio-auth", "Twilio auth token " + hex(32)},
		{"twilio-auth", "TWILIO_AUTH_TOKEN=" + hex(32)},
		{"twilio-api-key", "Twilio API key SK" + hex(32)},
		{"npm", "//registry.npmjs.org/:_authToken=npm_" + g.s(alnum, 36)},
		{"npm", "Publish with npm_" + g.s(alnum, 36)},
		{"pypi", "password = pypi-AgEIcHlwaS5vcmc" + g.s(alnum+"_-", 70)},
		{"huggingface", "HF_TOKEN=hf_" + g.s(upper+lower, 34)},
		{"huggingface", "Download the model with hf_" + g.s(upper+lower, 34)},
		{"azure-storage", "DefaultEndpointsProtocol=https;AccountName=prodlogs;AccountKey=" + g.s(alnum+"+/", 86) + "==;EndpointSuffix=core.windows.net"},
		{"square", "Square token sq0atp-" + g.s(alnum+"_-", 22)},
		{"square", "EAAA" + g.s(alnum+"_-", 60)},
		{"linear", "LINEAR_API_KEY=lin_api_" + g.s(alnum, 40)},
		{"postman", "Postman key PMAK-" + hex(24) + "-" + hex(34)},
		{"doppler", "DOPPLER_TOKEN=dp.pt." + g.s(alnum, 43)},
		{"pulumi", "PULUMI_ACCESS_TOKEN=pul-" + hex(40)},
		{"grafana", "Grafana service account glsa_" + g.s(alnum, 32) + "_" + hex(8)},
		{"newrelic", "New Relic key NRAK-" + g.s(upper+digits, 27)},
		{"databricks", "DATABRICKS_TOKEN=dapi" + hex(32)},
		{"vault", "VAULT_TOKEN=hvs." + g.s(alnum+"_-", 95)},
		{"terraform", "token = \"" + g.s(alnum, 14) + ".atlasv1." + g.s(alnum, 67) + "\""},
		{"age", "age key AGE-SECRET-KEY-1" + g.s(age, 58)},
		{"mailchimp", "Mailchimp: " + hex(32) + "-us14"},
		{"stripe-webhook", "STRIPE_WEBHOOK_SECRET=whsec_" + g.s(alnum, 32)},
		{"figma", "figd_" + g.s(alnum+"_-", 40)},
		{"flyio", "FLY_API_TOKEN=fo1_" + g.s(alnum+"_-", 43)},
		{"alibaba", "Alibaba key id LTAI" + g.s(alnum, 20)},
		{"google-oauth", "client secret GOCSPX-" + g.s(alnum+"_-", 28)},
		{"supabase", "supabase login --token sbp_" + hex(40)},
		{"replicate", "REPLICATE_API_TOKEN=r8_" + g.s(alnum, 37)},
		{"groq", "GROQ_API_KEY=gsk_" + g.s(alnum, 52)},
		{"slack-app", "Socket mode token xapp-1-A" + g.s(upper+digits, 10) + "-" + g.s(digits, 13) + "-" + hex(64)},
		{"bare-random", "Use " + g.s(alnum, 40) + " when the CLI asks."},
		{"bare-random", "it is " + g.s(alnum, 48)},
		{"password-in-prose", "The staging admin password is Tr0ub4dor&3x, change it after the demo."},
		{"password-in-prose", "The Wi-Fi passphrase is Kx9!mPq2vL7w."},
	}
}

// TestSecretCorpusRecall checks the scanner finds at least 95% of the
// corpus's secrets, of at least 30 kinds among at least 60 secrets.
func TestSecretCorpusRecall(t *testing.T) {
	s := mustScanner(t, secrets.Allow{})
	corpus := secretCorpus()
	kinds := map[string]bool{}
	missed := 0
	for _, c := range corpus {
		kinds[c.kind] = true
		if len(s.Scan("memory.md", []byte(c.text+"\n"))) == 0 {
			missed++
			t.Logf("missed %s: %s", c.kind, c.text)
		}
	}
	if len(corpus) < 60 || len(kinds) < 30 {
		t.Fatalf("corpus of %d secrets of %d kinds; want at least 60 of 30", len(corpus), len(kinds))
	}
	recall := float64(len(corpus)-missed) / float64(len(corpus))
	t.Logf("recall %.1f%% (%d of %d secrets, %d kinds)", 100*recall, len(corpus)-missed, len(corpus), len(kinds))
	if recall < 0.95 {
		t.Errorf("recall %.1f%%, want at least 95%%", 100*recall)
	}
}

// TestNoFalsePositivesInOrdinaryParagraphs scans at least 300 ordinary
// technical paragraphs (Go standard library documentation, and notes that
// talk about passwords, tokens, digests and IDs without holding a secret)
// and expects no finding at all.
func TestNoFalsePositivesInOrdinaryParagraphs(t *testing.T) {
	b, err := os.ReadFile("testdata/paragraphs.txt")
	if err != nil {
		t.Fatal(err)
	}
	paras := strings.Split(strings.TrimSpace(string(b)), "\n\n")
	if len(paras) < 300 {
		t.Fatalf("%d paragraphs; want at least 300", len(paras))
	}
	s := mustScanner(t, secrets.Allow{})
	for i, p := range paras {
		for _, f := range s.Scan("memory.md", []byte(p)) {
			t.Errorf("paragraph %d: %s in %q", i+1, f, p)
		}
	}
}

// newRuleCases returns a true positive and a true negative for each rule
// added for the recall corpus: the positive is taken from the corpus, the
// negative is the same text with a placeholder in place of the secret.
func newRuleCases() map[string][]ruleCase {
	g := newGen(7)
	hex := func(n int) string { return g.s(hexLow, n) }
	pos := func(id, text string) ruleCase { return ruleCase{"reports " + id, text, []string{id}} }
	neg := func(name, text string) ruleCase { return ruleCase{"skips " + name, text, nil} }
	x := func(n int) string { return strings.Repeat("x", n) }
	return map[string][]ruleCase{
		"sendgrid-key":          {pos("sendgrid-key", "SG."+g.s(alnum, 22)+"."+g.s(alnum, 43)), neg("a placeholder", "SG."+x(22)+"."+x(43))},
		"digitalocean-token":    {pos("digitalocean-token", "dop_v1_"+hex(64)), neg("a placeholder", "dop_v1_"+x(64))},
		"shopify-token":         {pos("shopify-token", "shpat_"+hex(32)), neg("a placeholder", "shpat_"+strings.Repeat("0", 32))},
		"mailgun-key":           {pos("mailgun-key", "key-"+hex(32)), neg("a word", "the api-key-rotation runbook")},
		"discord-webhook":       {pos("discord-webhook", "https://discord.com/api/webhooks/"+g.s(digits, 18)+"/"+g.s(alnum, 68)), neg("the docs page", "see discord.com/api/webhooks for the format")},
		"telegram-bot-token":    {pos("telegram-bot-token", g.s(digits, 10)+":AA"+g.s(alnum, 33)), neg("a time", "at 10:AA the job ran")},
		"twilio-api-key":        {pos("twilio-api-key", "SK"+hex(32)), neg("a word", "SKIP the SKU check")},
		"npm-token":             {pos("npm-token", "npm_"+g.s(alnum, 36)), neg("a placeholder", "npm_"+x(36))},
		"pypi-token":            {pos("pypi-token", "pypi-AgEIcHlwaS5vcmc"+g.s(alnum, 60)), neg("the prefix alone", "tokens start with pypi-AgEIcHlwaS5vcmc")},
		"huggingface-token":     {pos("huggingface-token", "hf_"+g.s(upper+lower, 34)), neg("a placeholder", "hf_"+x(34))},
		"azure-storage-key":     {pos("azure-storage-key", "AccountKey="+g.s(alnum, 86)+"=="), neg("a variable", "AccountKey=${AZURE_KEY}")},
		"square-token":          {pos("square-token", "sq0atp-"+g.s(alnum, 22)), neg("a placeholder", "sq0atp-"+x(22))},
		"linear-key":            {pos("linear-key", "lin_api_"+g.s(alnum, 40)), neg("a placeholder", "lin_api_"+x(40))},
		"postman-key":           {pos("postman-key", "PMAK-"+hex(24)+"-"+hex(34)), neg("a placeholder", "PMAK-"+strings.Repeat("0", 24)+"-"+strings.Repeat("0", 34))},
		"doppler-token":         {pos("doppler-token", "dp.pt."+g.s(alnum, 43)), neg("a placeholder", "dp.pt."+x(43))},
		"pulumi-token":          {pos("pulumi-token", "pul-"+hex(40)), neg("a placeholder", "pul-"+strings.Repeat("0", 40))},
		"grafana-token":         {pos("grafana-token", "glsa_"+g.s(alnum, 32)+"_"+hex(8)), neg("a placeholder", "glsa_"+x(32)+"_"+strings.Repeat("0", 8))},
		"newrelic-key":          {pos("newrelic-key", "NRAK-"+g.s(upper+digits, 27)), neg("a placeholder", "NRAK-"+strings.Repeat("X", 27))},
		"databricks-token":      {pos("databricks-token", "dapi"+hex(32)), neg("a placeholder", "dapi"+strings.Repeat("0", 32))},
		"vault-token":           {pos("vault-token", "hvs."+g.s(alnum, 95)), neg("a placeholder", "hvs."+x(95))},
		"terraform-token":       {pos("terraform-token", g.s(alnum, 14)+".atlasv1."+g.s(alnum, 67)), neg("a placeholder", x(14)+".atlasv1."+x(67))},
		"age-secret-key":        {pos("age-secret-key", "AGE-SECRET-KEY-1"+g.s("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)), neg("a placeholder", "AGE-SECRET-KEY-1"+strings.Repeat("Q", 58))},
		"mailchimp-key":         {pos("mailchimp-key", hex(32)+"-us14"), neg("a placeholder", strings.Repeat("0", 32)+"-us14")},
		"stripe-webhook-secret": {pos("stripe-webhook-secret", "whsec_"+g.s(alnum, 32)), neg("a placeholder", "whsec_"+x(32))},
		"figma-token":           {pos("figma-token", "figd_"+g.s(alnum, 40)), neg("a placeholder", "figd_"+x(40))},
		"flyio-token":           {pos("flyio-token", "fo1_"+g.s(alnum, 43)), neg("a placeholder", "fo1_"+x(43))},
		"alibaba-key-id":        {pos("alibaba-key-id", "LTAI"+g.s(alnum, 20)), neg("a placeholder", "LTAI"+x(20))},
		"google-oauth-secret":   {pos("google-oauth-secret", "GOCSPX-"+g.s(alnum, 28)), neg("a placeholder", "GOCSPX-"+x(28))},
		"supabase-token":        {pos("supabase-token", "sbp_"+hex(40)), neg("a placeholder", "sbp_"+strings.Repeat("0", 40))},
		"replicate-token":       {pos("replicate-token", "r8_"+g.s(alnum, 37)), neg("a placeholder", "r8_"+x(37))},
		"groq-key":              {pos("groq-key", "gsk_"+g.s(alnum, 52)), neg("a placeholder", "gsk_"+x(52))},
		"slack-app-token":       {pos("slack-app-token", "xapp-1-A"+g.s(upper+digits, 10)+"-"+g.s(digits, 13)+"-"+hex(64)), neg("the prefix in prose", "app tokens start with xapp-1-")},
		"twilio-auth-token":     {pos("twilio-auth-token", "Twilio auth token "+hex(32)), neg("a hex ID without Twilio", "request "+hex(32)+" failed")},
		"password-in-prose":     {pos("password-in-prose", "The admin password is Tr0ub4dor&3x."), neg("a sentence about a password", "The password is stored in Vault and rotated monthly.")},
		"high-entropy-string":   {pos("high-entropy-string", "Use "+g.s(alnum, 40)+" when asked."), neg("a commit ID", "Fixed in "+hex(40)+".")},
		"bearer-token":          {pos("bearer-token", "curl -H 'Authorization: Bearer "+g.s(alnum, 20)+"-"+g.s(alnum, 12)+"' https://api.internal/v1"), neg("a variable", "Authorization: Bearer $API_TOKEN")},
		"basic-auth-header":     {pos("basic-auth-header", "Authorization: Basic "+base64.StdEncoding.EncodeToString([]byte("ci:"+g.s(alnum, 12)))), neg("words", "Basic authentication is off.")},
		"secret-in-prose":       {pos("secret-in-prose", "The new webhook signing key is "+g.s(alnum, 12)+"-"+g.s(alnum, 12)+"."), neg("a sentence about a token", "The token is stored in Vault and renewed hourly.")},
	}
}
