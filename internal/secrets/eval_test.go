package secrets_test

import (
	"encoding/base64"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/secrets"
)

// This file is the evaluation corpus published in docs/SECRETS.md: fake
// credentials of many kinds, generated from a fixed seed in the shapes
// the vendors document, each written four ways (a plain sentence, a .env
// line, YAML, code), and generated benign paragraphs full of things that
// look random and are not secrets (digests, commit IDs, UUIDs, base64 of
// text, checksums, SSH public keys, URLs, versions, identifiers).
//
// Run with CONTEXTFS_SECRETS_EVAL=path to write the recall table by kind
// to that file.

// evalKind is one kind of credential.
type evalKind struct {
	kind string
	// rule is the rule expected to report it, for the rule cases; "" where
	// the rule has cases of its own.
	rule string
	// vendor is a word every sentence holding the credential names, for
	// credentials with no prefix of their own (Datadog's 32 hex digits);
	// "" for the others, which must be found in a sentence naming nothing.
	vendor string
	// name is the variable the .env, YAML and code forms assign it to.
	name string
	// prefix is the fixed start of the token, kept in the placeholder that
	// the rule must not report; "" where no such negative is generated.
	prefix string
	token  func(g gen) string
}

// evalKinds returns the kinds of the corpus.
func evalKinds() []evalKind {
	an := func(n int) func(gen) string { return func(g gen) string { return g.s(alnum, n) } }
	hx := func(n int) func(gen) string { return func(g gen) string { return g.s(hexLow, n) } }
	p := func(prefix string, body func(gen) string) func(gen) string {
		return func(g gen) string { return prefix + body(g) }
	}
	cat := func(parts ...any) func(gen) string {
		return func(g gen) string {
			var b strings.Builder
			for _, part := range parts {
				switch v := part.(type) {
				case string:
					b.WriteString(v)
				case func(gen) string:
					b.WriteString(v(g))
				}
			}
			return b.String()
		}
	}
	set := func(alphabet string, n int) func(gen) string { return func(g gen) string { return g.s(alphabet, n) } }
	uuid := cat(hx(8), "-", hx(4), "-4", hx(3), "-a", hx(3), "-", hx(12))
	u := func(kind, rule, name, prefix string, token func(gen) string) evalKind {
		return evalKind{kind: kind, rule: rule, name: name, prefix: prefix, token: token}
	}
	// v builds a kind whose token is prefix + body and whose rule has no
	// cases of its own.
	v := func(kind, rule, name, prefix string, body func(gen) string) evalKind {
		return u(kind, rule, name, prefix, p(prefix, body))
	}
	ctx := func(kind, rule, vendor, name string, token func(gen) string) evalKind {
		return evalKind{kind: kind, rule: rule, vendor: vendor, name: name, token: token}
	}
	pem := func(kind string) func(gen) string {
		return func(g gen) string { return g.pemBlock(kind) }
	}
	age := "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
	return []evalKind{
		u("aws-access-key-id", "", "AWS_ACCESS_KEY_ID", "", p("AKIA", set(upper+digits, 16))),
		u("aws-temporary-key-id", "", "AWS_ACCESS_KEY_ID", "", p("ASIA", set(upper+digits, 16))),
		u("aws-secret-access-key", "", "AWS_SECRET_ACCESS_KEY", "", set(alnum+"+/", 40)),
		u("aws-session-token", "aws-session-token", "AWS_SESSION_TOKEN", "IQoJb3JpZ2luX2Vj", p("IQoJb3JpZ2luX2Vj", set(b64, 300))),
		u("aws-bedrock-key", "aws-bedrock-key", "AWS_BEARER_TOKEN_BEDROCK", "ABSK", p("ABSK", set(b64, 128))),
		u("github-classic-pat", "", "GITHUB_TOKEN", "", p("ghp_", an(36))),
		u("github-oauth", "", "GH_OAUTH", "", p("gho_", an(36))),
		u("github-user-to-server", "", "GH_APP_USER", "", p("ghu_", an(36))),
		u("github-installation", "", "GH_INSTALLATION", "", p("ghs_", an(36))),
		u("github-refresh", "", "GH_REFRESH", "", p("ghr_", an(36))),
		u("github-fine-grained-pat", "", "GH_PAT", "", cat("github_pat_", an(22), "_", an(59))),
		u("gitlab-pat", "", "GITLAB_PAT", "", p("glpat-", set(alnum+"_-", 20))),
		v("gitlab-pipeline-trigger", "gitlab-other-token", "GITLAB_TRIGGER", "glptt-", hx(40)),
		v("gitlab-runner", "gitlab-other-token", "CI_RUNNER", "glrt-", set(alnum+"_-", 20)),
		v("gitlab-deploy", "gitlab-other-token", "GITLAB_DEPLOY", "gldt-", set(alnum+"_-", 20)),
		v("gitlab-feed", "gitlab-other-token", "GITLAB_FEED", "glft-", set(alnum+"_-", 20)),
		v("gitlab-incoming-mail", "gitlab-other-token", "GITLAB_MAIL", "glimt-", set(alnum+"_-", 25)),
		v("gitlab-agent", "gitlab-other-token", "GITLAB_AGENT", "glagent-", set(alnum+"_-", 50)),
		v("gitlab-oauth-secret", "gitlab-other-token", "GITLAB_OAUTH", "gloas-", set(alnum+"_-", 64)),
		u("gitlab-ci-job", "gitlab-other-token", "CI_JOB", "", cat("glcbt-", set(digits, 2), "_", set(alnum+"_-", 20))),
		v("gitlab-scim", "gitlab-other-token", "GITLAB_SCIM", "glsoat-", set(alnum+"_-", 20)),
		v("gitlab-feature-flags", "gitlab-other-token", "UNLEASH_INSTANCE", "glffct-", set(alnum+"_-", 20)),
		v("gitlab-runner-registration", "gitlab-other-token", "RUNNER_REGISTRATION", "GR1348941", set(alnum+"_-", 20)),
		u("slack-bot", "", "SLACK_BOT", "", cat("xoxb-", set(digits, 11), "-", set(digits, 12), "-", an(24))),
		u("slack-user", "", "SLACK_USER", "", cat("xoxp-", set(digits, 12), "-", set(digits, 12), "-", set(digits, 13), "-", hx(32))),
		u("slack-webhook", "", "SLACK_HOOK", "", cat("https://hooks.slack.com/services/T", set(upper+digits, 8), "/B", set(upper+digits, 10), "/", an(24))),
		u("slack-app", "", "SLACK_APP", "", cat("xapp-1-A", set(upper+digits, 10), "-", set(digits, 13), "-", hx(64))),
		v("slack-config", "slack-config-token", "SLACK_CONFIG", "xoxe.xoxp-1-", set(upper+digits, 146)),
		u("stripe-live-secret", "", "STRIPE_KEY", "", p("sk_live_", an(99))),
		u("stripe-restricted", "", "STRIPE_RESTRICTED", "", p("rk_live_", an(99))),
		u("stripe-webhook-secret", "", "STRIPE_WEBHOOK", "", p("whsec_", an(32))),
		u("google-api-key", "", "GOOGLE_MAPS", "", p("AIza", set(b64url, 35))),
		u("google-oauth-client-secret", "", "GOOGLE_CLIENT", "", p("GOCSPX-", set(b64url, 28))),
		v("google-oauth-access-token", "google-oauth-token", "GOOGLE_ACCESS", "ya29.", set(b64url, 120)),
		v("google-refresh-token", "google-oauth-token", "GOOGLE_REFRESH", "1//0", set(b64url, 90)),
		u("gcp-service-account", "", "GOOGLE_CREDENTIALS", "", func(g gen) string {
			return `{"type": "service_account", "private_key": "` + strings.ReplaceAll(g.pemBlock(""), "\n", `\n`) + `"}`
		}),
		u("openai-project", "", "OPENAI_API_KEY", "", cat("sk-proj-", set(b64url, 58), "T3Blbk", "FJ", set(b64url, 58))),
		u("openai-legacy", "", "OPENAI_KEY", "", cat("sk-", an(20), "T3Blbk", "FJ", an(20))),
		u("openai-service-account", "", "OPENAI_SVC", "", cat("sk-svcacct-", set(b64url, 58), "T3Blbk", "FJ", set(b64url, 58))),
		u("deepseek", "", "DEEPSEEK", "", p("sk-", hx(32))),
		u("anthropic-api", "", "ANTHROPIC_API_KEY", "", cat("sk-ant-api03-", set(b64url, 93), "AA")),
		u("anthropic-admin", "", "ANTHROPIC_ADMIN", "", cat("sk-ant-admin01-", set(b64url, 93), "AA")),
		u("private-key-rsa", "", "RSA_KEY", "", pem("RSA ")),
		u("private-key-openssh", "", "SSH_KEY", "", pem("OPENSSH ")),
		u("private-key-ec", "", "EC_KEY", "", pem("EC ")),
		u("private-key-pkcs8", "", "TLS_KEY", "", pem("")),
		u("private-key-dsa", "", "DSA_KEY", "", pem("DSA ")),
		u("private-key-encrypted", "", "ENC_KEY", "", pem("ENCRYPTED ")),
		u("private-key-pgp", "", "PGP_KEY", "", func(g gen) string {
			b := "-----BEGIN PGP " + "PRIVATE KEY BLOCK-----\n\n"
			for range 5 {
				b += g.s(b64, 64) + "\n"
			}
			return b + "=" + g.s(b64, 4) + "\n-----END PGP " + "PRIVATE KEY BLOCK-----"
		}),
		u("jwt", "", "ID_TOKEN", "", func(g gen) string { return g.jwtToken(`{"sub":"` + g.s(digits, 10) + `","role":"service"}`) }),
		u("url-password-postgres", "", "DATABASE_URL", "", cat("postgres://app:", an(18), "@db.internal:5432/app")),
		u("url-password-mysql", "", "MYSQL_URL", "", cat("mysql://root:", an(16), "@10.0.3.7:3306/shop")),
		u("url-password-mongodb", "", "MONGO_URL", "", cat("mongodb+srv://svc:", an(20), "@cluster0.ab1cd.mongodb.net/prod")),
		u("url-password-redis", "", "REDIS_URL", "", cat("redis://default:", an(24), "@cache.prod.internal:6379")),
		u("url-password-amqp", "", "AMQP_URL", "", cat("amqps://worker:", an(22), "@mq.internal/vhost")),
		u("sendgrid", "", "SENDGRID", "", cat("SG.", set(b64url, 22), ".", set(b64url, 43))),
		u("digitalocean-pat", "", "DO_PAT", "", p("dop_v1_", hx(64))),
		u("digitalocean-oauth", "", "DO_OAUTH", "", p("doo_v1_", hx(64))),
		u("digitalocean-refresh", "", "DO_REFRESH", "", p("dor_v1_", hx(64))),
		u("shopify-admin", "", "SHOPIFY_ADMIN", "", p("shpat_", hx(32))),
		u("shopify-custom-app", "", "SHOPIFY_CUSTOM", "", p("shpca_", hx(32))),
		u("shopify-private-app", "", "SHOPIFY_PRIVATE", "", p("shppa_", hx(32))),
		u("shopify-shared-secret", "", "SHOPIFY_SHARED", "", p("shpss_", hx(32))),
		u("mailgun", "", "MAILGUN", "", p("key-", hx(32))),
		u("discord-webhook", "", "DISCORD_HOOK", "", cat("https://discord.com/api/webhooks/", set(digits, 18), "/", set(b64url, 68))),
		u("telegram-bot", "", "TELEGRAM_BOT", "", cat(set(digits, 10), ":AA", set(b64url, 33))),
		u("twilio-api-key", "", "TWILIO_API_KEY", "", p("SK", hx(32))),
		ctx("twilio-auth-token", "", "Twilio", "TWILIO_AUTH_TOKEN", hx(32)),
		u("npm", "", "NPM_TOKEN", "", p("npm_", an(36))),
		u("pypi", "", "PYPI_TOKEN", "", p("pypi-AgEIcHlwaS5vcmc", set(b64url, 70))),
		u("huggingface-user", "", "HF_TOKEN", "", p("hf_", set(upper+lower, 34))),
		v("huggingface-org", "huggingface-token", "HF_ORG", "api_org_", set(upper+lower, 34)),
		u("azure-storage-key", "", "AZURE_STORAGE", "", cat("DefaultEndpointsProtocol=https;AccountName=prodlogs;AccountKey=", set(b64, 86), "==;EndpointSuffix=core.windows.net")),
		u("square-access", "", "SQUARE_ACCESS", "", p("sq0atp-", set(b64url, 22))),
		u("square-oauth-secret", "", "SQUARE_OAUTH", "", p("sq0csp-", set(b64url, 43))),
		u("square-production", "", "SQUARE_PROD", "", p("EAAA", set(b64url, 60))),
		u("linear-api", "", "LINEAR_API_KEY", "", p("lin_api_", an(40))),
		v("linear-oauth", "linear-key", "LINEAR_OAUTH", "lin_oauth_", hx(64)),
		u("postman", "", "POSTMAN", "", cat("PMAK-", hx(24), "-", hx(34))),
		u("doppler-personal", "", "DOPPLER_TOKEN", "", p("dp.pt.", an(43))),
		v("doppler-service", "doppler-token", "DOPPLER_SERVICE", "dp.st.", an(43)),
		u("pulumi", "", "PULUMI_ACCESS_TOKEN", "", p("pul-", hx(40))),
		u("grafana-service-account", "", "GRAFANA_SA", "", cat("glsa_", an(32), "_", hx(8))),
		u("grafana-cloud", "", "GRAFANA_CLOUD", "", p("glc_", set(b64, 120))),
		v("grafana-api-key", "grafana-token", "GRAFANA_API", "eyJrIjoi", an(80)),
		u("newrelic-user", "", "NEW_RELIC_API", "", p("NRAK-", set(upper+digits, 27))),
		v("newrelic-insert", "newrelic-key", "NEW_RELIC_INSERT", "NRII-", set(alnum+"_-", 32)),
		v("newrelic-browser", "newrelic-key", "NEW_RELIC_BROWSER", "NRJS-", hx(19)),
		u("newrelic-license", "newrelic-key", "NEW_RELIC_LICENSE", "", cat(hx(36), "NRAL")),
		u("databricks", "", "DATABRICKS_TOKEN", "", p("dapi", hx(32))),
		u("vault-service", "", "VAULT_TOKEN", "", p("hvs.", set(b64url, 95))),
		v("vault-batch", "vault-token", "VAULT_BATCH", "hvb.", set(b64url, 140)),
		u("terraform-cloud", "", "TFE_TOKEN", "", cat(an(14), ".atlasv1.", an(67))),
		u("age", "", "AGE_KEY", "", p("AGE-SECRET-KEY-1", set(age, 58))),
		u("mailchimp", "", "MAILCHIMP", "", cat(hx(32), "-us14")),
		u("figma", "", "FIGMA_TOKEN", "", p("figd_", set(b64url, 40))),
		u("flyio", "", "FLY_API_TOKEN", "", p("fo1_", set(b64url, 43))),
		u("flyio-macaroon", "", "FLY_MACAROON", "", p("FlyV1 fm2_", set(b64, 160))),
		u("alibaba-key-id", "", "ALIBABA_KEY_ID", "", p("LTAI", an(20))),
		u("supabase-access", "", "SUPABASE_ACCESS", "", p("sbp_", hx(40))),
		v("supabase-secret-key", "supabase-token", "SUPABASE_SECRET", "sb_secret_", set(b64url, 40)),
		u("replicate", "", "REPLICATE_API_TOKEN", "", p("r8_", an(37))),
		u("groq", "", "GROQ_API_KEY", "", p("gsk_", an(52))),
		v("dockerhub-pat", "dockerhub-token", "DOCKERHUB_TOKEN", "dckr_pat_", set(b64url, 27)),
		v("dockerhub-org", "dockerhub-token", "DOCKERHUB_ORG", "dckr_oat_", set(b64url, 32)),
		v("planetscale-token", "planetscale-token", "PLANETSCALE_TOKEN", "pscale_tkn_", set(b64url, 43)),
		v("planetscale-password", "planetscale-token", "PLANETSCALE_PW", "pscale_pw_", set(b64url, 43)),
		v("planetscale-oauth", "planetscale-token", "PLANETSCALE_OAUTH", "pscale_oauth_", set(b64url, 43)),
		u("brevo-api", "brevo-key", "BREVO_API", "", cat("xkeysib-", hx(64), "-", an(16))),
		u("brevo-smtp", "brevo-key", "BREVO_SMTP", "", cat("xsmtpsib-", hx(64), "-", an(16))),
		u("sentry-org", "sentry-token", "SENTRY_AUTH", "", func(g gen) string {
			claims := base64.RawStdEncoding.EncodeToString([]byte(`{"iat":` + g.s(digits, 10) + `,"url":"https://sentry.io","region_url":"https://us.sentry.io","org":"acme"}`))
			return "sntrys_" + claims + "_" + g.s(b64, 43)
		}),
		v("sentry-user", "sentry-token", "SENTRY_USER", "sntryu_", hx(64)),
		v("rubygems", "rubygems-key", "GEM_HOST_API_KEY", "rubygems_", hx(48)),
		v("heroku", "heroku-key", "HEROKU_API_KEY", "HRKU-AA", set(b64url, 58)),
		v("openshift", "openshift-token", "OC_TOKEN", "sha256~", set(b64url, 43)),
		v("perplexity", "perplexity-key", "PPLX_API_KEY", "pplx-", an(48)),
		v("xai", "xai-key", "XAI_API_KEY", "xai-", an(80)),
		u("pinecone", "pinecone-key", "PINECONE_API_KEY", "", cat("pcsk_", an(6), "_", an(64))),
		u("langsmith-personal", "langsmith-key", "LANGSMITH_API_KEY", "", cat("lsv2_pt_", hx(32), "_", hx(10))),
		u("langsmith-service", "langsmith-key", "LANGCHAIN_API_KEY", "", cat("lsv2_sk_", hx(32), "_", hx(10))),
		u("dynatrace", "dynatrace-token", "DT_API_TOKEN", "", cat("dt0c01.", set(upper+digits, 24), ".", set(upper+digits, 64))),
		v("atlassian", "atlassian-token", "JIRA_API_TOKEN", "ATATT3", set(b64url, 186)),
		v("bitbucket-app-password", "bitbucket-app-password", "BITBUCKET_APP_PASSWORD", "ATBB", an(32)),
		v("onepassword-service-account", "onepassword-token", "OP_SERVICE_ACCOUNT_TOKEN", "ops_eyJ", set(b64, 300)),
		u("onepassword-secret-key", "onepassword-token", "OP_SECRET_KEY", "", cat("A3-", set(upper+digits, 6), "-", set(upper+digits, 11), "-", set(upper+digits, 5), "-", set(upper+digits, 5), "-", set(upper+digits, 5))),
		v("adobe", "adobe-secret", "ADOBE_CLIENT_SECRET", "p8e-", an(32)),
		u("airtable", "airtable-token", "AIRTABLE_PAT", "", cat("pat", an(14), ".", hx(64))),
		v("artifactory-api-key", "artifactory-token", "ARTIFACTORY_KEY", "AKCp", an(69)),
		v("artifactory-reference", "artifactory-token", "ARTIFACTORY_REF", "cmVmd", an(59)),
		u("azure-ad-client-secret", "azure-ad-client-secret", "AZURE_CLIENT_SECRET", "", cat(an(3), set(digits, 1), "Q~", set(alnum+"_~.-", 34))),
		u("azure-devops", "azure-devops-token", "AZURE_DEVOPS_PAT", "", cat(an(76), "AZDO", an(4))),
		v("clickhouse", "clickhouse-key", "CLICKHOUSE_SECRET", "4b1d", an(38)),
		v("clojars", "clojars-token", "CLOJARS_DEPLOY", "CLOJARS_", set(lower+digits, 60)),
		u("cloudflare-origin-ca", "cloudflare-origin-ca-key", "CF_ORIGIN_CA", "", cat("v1.0-", hx(24), "-", hx(146))),
		u("defined-networking", "defined-networking-token", "DN_API", "", cat("dnkey-", set(alnum, 26), "-", set(alnum, 52))),
		v("duffel", "duffel-token", "DUFFEL", "duffel_live_", set(b64url, 43)),
		v("easypost", "easypost-key", "EASYPOST", "EZAK", an(54)),
		v("facebook", "facebook-token", "FB_ACCESS", "EAAG", an(180)),
		u("flutterwave", "flutterwave-key", "FLW_SECRET", "", cat("FLWSECK_TEST-", set("abcdefgh0123456789", 32), "-X")),
		v("frameio", "frameio-token", "FRAMEIO", "fio-u-", set(b64url, 64)),
		u("harness", "harness-token", "HARNESS_PAT", "", cat("pat.", set(b64url, 22), ".", an(24), ".", an(20))),
		v("infracost", "infracost-key", "INFRACOST", "ico-", an(32)),
		v("intra42", "intra42-secret", "INTRA_SECRET", "s-s4t2ud-", hx(64)),
		u("maxmind", "maxmind-key", "MAXMIND_LICENSE", "", cat(an(6), "_", an(29), "_mmk")),
		u("notion", "notion-token", "NOTION_TOKEN", "", cat("ntn_", set(digits, 11), an(35))),
		v("notion-legacy", "notion-token", "NOTION_LEGACY", "secret_", an(43)),
		v("octopus-deploy", "octopus-deploy-key", "OCTOPUS_API", "API-", set(upper+digits, 26)),
		v("prefect", "prefect-token", "PREFECT_API_KEY", "pnu_", an(36)),
		v("readme", "readme-key", "README_API", "rdme_", set(lower+digits, 70)),
		v("scalingo", "scalingo-token", "SCALINGO", "tk-us-", set(b64url, 48)),
		v("settlemint", "settlemint-token", "SETTLEMINT", "sm_pat_", an(16)),
		v("shippo", "shippo-token", "SHIPPO", "shippo_live_", hx(40)),
		v("sourcegraph", "sourcegraph-token", "SRC_ACCESS_TOKEN", "sgp_", cat(hx(16), "_", hx(40))),
		v("typeform", "typeform-token", "TYPEFORM", "tfp_", set(b64url, 59)),
		v("sonarqube", "sonarqube-token", "SONAR_TOKEN", "squ_", hx(40)),
		u("mapbox-secret", "mapbox-secret-token", "MAPBOX_SECRET", "", func(g gen) string {
			return "sk." + base64.RawURLEncoding.EncodeToString([]byte(`{"u":"acme-maps","a":"`+g.s(lower+digits, 25)+`"}`)) + "." + g.s(b64url, 22)
		}),
		v("twitter-bearer", "twitter-bearer-token", "TWITTER_BEARER", strings.Repeat("A", 22), set(alnum+"%", 90)),
		v("dropbox", "dropbox-token", "DROPBOX", "sl.", set(b64url, 138)),
		v("yandex", "yandex-key", "YC_API_KEY", "AQVN", set(b64url, 36)),
		u("teams-webhook", "teams-webhook", "TEAMS_HOOK", "", cat("https://acme.webhook.office.com/webhookb2/", uuid, "@", uuid, "/IncomingWebhook/", hx(32), "/", uuid)),
		u("braintree", "braintree-token", "BRAINTREE", "", cat("access_token$production$", set(lower+digits, 16), "$", hx(32))),
		u("plaid", "plaid-token", "PLAID_ACCESS", "", cat("access-production-", uuid)),
		v("openrouter", "openrouter-key", "OPENROUTER_API_KEY", "sk-or-v1-", hx(64)),
		v("tavily", "tavily-key", "TAVILY_API_KEY", "tvly-dev-", an(32)),
		v("jina", "jina-key", "JINA_API_KEY", "jina_", an(72)),
		v("fireworks", "fireworks-key", "FIREWORKS_API_KEY", "fw_", an(24)),
		v("elevenlabs", "elevenlabs-key", "ELEVENLABS_API_KEY", "sk_", hx(48)),
		u("langfuse", "langfuse-secret-key", "LANGFUSE_SECRET_KEY", "", p("sk-lf-", uuid)),
		v("cerebras", "cerebras-key", "CEREBRAS_API_KEY", "csk-", set(lower+digits, 48)),
		v("anyscale", "anyscale-key", "ANYSCALE_API_KEY", "esecret_", an(26)),
		v("netlify", "netlify-token", "NETLIFY_AUTH_TOKEN", "nfp_", an(40)),
		v("render", "render-key", "RENDER_API_KEY", "rnd_", an(32)),
		v("neon", "neon-key", "NEON_API_KEY", "napi_", set(lower+digits, 64)),
		v("buildkite", "buildkite-token", "BUILDKITE_API_TOKEN", "bkua_", hx(40)),
		u("circleci", "circleci-token", "CIRCLE_TOKEN", "", cat("CCIPAT_", an(22), "_", hx(40))),
		v("posthog-personal", "posthog-personal-key", "POSTHOG_PERSONAL_API_KEY", "phx_", an(45)),
		v("honeycomb", "honeycomb-key", "HONEYCOMB_API_KEY", "hcaik_", set(lower+digits, 58)),
		u("resend", "resend-key", "RESEND_API_KEY", "", cat("re_", an(8), "_", an(24))),
		v("nuget", "nuget-key", "NUGET_API_KEY", "oy2", set(lower+digits, 43)),
		v("crates-io", "crates-io-token", "CARGO_REGISTRY_TOKEN", "cio", an(32)),
		v("contentful", "contentful-token", "CONTENTFUL_MANAGEMENT", "CFPAT-", set(b64url, 43)),
		u("firebase-fcm", "firebase-fcm-key", "FCM_SERVER_KEY", "", cat(set(b64url, 11), ":APA91b", set(b64url, 134))),
		ctx("datadog-api", "datadog-key", "Datadog", "DD_API_KEY", hx(32)),
		ctx("datadog-app", "datadog-key", "Datadog", "DD_APP_KEY", hx(40)),
		ctx("heroku-legacy", "heroku-legacy-key", "Heroku", "HEROKU_LEGACY", uuid),
		ctx("cloudflare-api-token", "cloudflare-token", "Cloudflare", "CF_API_TOKEN", set(b64url, 40)),
		ctx("cloudflare-global-key", "cloudflare-token", "Cloudflare", "CF_API_KEY", hx(37)),
		ctx("algolia", "algolia-key", "Algolia", "ALGOLIA_ADMIN", hx(32)),
		ctx("okta", "okta-token", "Okta", "OKTA_API", p("00", set(b64url, 40))),
		ctx("discord-bot", "discord-bot-token", "Discord", "DISCORD_BOT", cat("M", an(25), ".", set(b64url, 6), ".", set(b64url, 38))),
		ctx("snyk", "snyk-token", "Snyk", "SNYK_TOKEN", uuid),
		ctx("postmark", "postmark-token", "Postmark", "POSTMARK_SERVER", uuid),
		ctx("wandb", "wandb-key", "WANDB", "WANDB_API_KEY", hx(40)),
		ctx("cohere", "cohere-key", "Cohere", "CO_API_KEY", an(40)),
		ctx("mistral", "mistral-key", "Mistral", "MISTRAL_API_KEY", an(32)),
		ctx("together", "together-key", "Together AI", "TOGETHER_API_KEY", hx(64)),
		ctx("sentry-legacy", "sentry-legacy-token", "Sentry", "SENTRY_LEGACY", hx(64)),
		ctx("pagerduty", "pagerduty-key", "PagerDuty", "PAGERDUTY_API", p("u+", set(b64url, 18))),
		u("bearer-header", "", "AUTH_HEADER", "", p("Authorization: Bearer ", an(40))),
		u("basic-auth-header", "", "AUTH_BASIC", "", func(g gen) string {
			return "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("deploy:"+g.s(alnum, 18)))
		}),
		u("wireguard", "", "WG_PRIVATE_KEY", "", func(g gen) string { return g.s(b64, 43) + "=" }),
		u("random-api-key", "", "API_KEY", "", an(40)),
		u("random-secret-hex", "", "SIGNING_SECRET", "", hx(64)),
	}
}

// evalForm is one way a credential is written.
type evalForm struct {
	name  string
	write func(k evalKind, token string, i int) string
}

// proseTemplates are plain sentences that name nothing secret: what the
// token is must be told by the token itself.
var proseTemplates = []string{
	"The deploy job now uses %s for the nightly run.",
	"Heads up: %s was pasted into the incident channel by mistake.",
	"We switched the staging service over to %s last week.",
	"For the migration I used %s and it expires in March.",
	"Note that %s is what the release runner reads at start.",
}

func evalForms() []evalForm {
	return []evalForm{
		{"prose", func(k evalKind, tok string, i int) string {
			s := fmt.Sprintf(proseTemplates[i%len(proseTemplates)], tok)
			if k.vendor != "" {
				s = "In the " + k.vendor + " setup: " + s
			}
			return s
		}},
		{"env", func(k evalKind, tok string, i int) string { return k.name + "=" + tok }},
		{"yaml", func(k evalKind, tok string, i int) string {
			if strings.Contains(tok, "\n") {
				return "deploy:\n  " + strings.ToLower(k.name) + ": |\n    " + strings.ReplaceAll(tok, "\n", "\n    ")
			}
			return "deploy:\n  " + strings.ToLower(k.name) + ": \"" + tok + "\""
		}},
		{"code", func(k evalKind, tok string, i int) string {
			pkg := "api"
			if k.vendor != "" {
				pkg = strings.ToLower(strings.ReplaceAll(k.vendor, " ", ""))
			}
			if strings.Contains(tok, "\n") {
				return "const material = `" + tok + "`"
			}
			return fmt.Sprintf("client := %s.NewClient(%q)", pkg, tok)
		}},
	}
}

// evalSample is one credential written one way.
type evalSample struct {
	kind, form, text string
}

// evalCorpus returns two credentials of each kind written each way.
func evalCorpus() []evalSample {
	g := newGen(30)
	var out []evalSample
	for i, k := range evalKinds() {
		for _, f := range evalForms() {
			for rep := range 2 {
				out = append(out, evalSample{k.kind, f.name, f.write(k, k.token(g), i+rep)})
			}
		}
	}
	return out
}

// TestSecretEvalCorpus checks recall on the generated corpus: at least 95%
// overall and 90% in plain sentences, over at least 150 kinds.
func TestSecretEvalCorpus(t *testing.T) {
	s := mustScanner(t, secrets.Allow{})
	type tally struct{ found, total int }
	byKind := map[string]map[string]*tally{}
	byForm := map[string]*tally{}
	var all tally
	for _, c := range evalCorpus() {
		if byKind[c.kind] == nil {
			byKind[c.kind] = map[string]*tally{}
		}
		if byKind[c.kind][c.form] == nil {
			byKind[c.kind][c.form] = &tally{}
		}
		if byForm[c.form] == nil {
			byForm[c.form] = &tally{}
		}
		hit := len(s.Scan("memory.md", []byte(c.text+"\n"))) > 0
		for _, t := range []*tally{byKind[c.kind][c.form], byForm[c.form], &all} {
			t.total++
			if hit {
				t.found++
			}
		}
		if !hit {
			t.Logf("missed %s (%s): %s", c.kind, c.form, c.text)
		}
	}
	pct := func(t tally) float64 { return 100 * float64(t.found) / float64(t.total) }
	t.Logf("recall %.1f%% (%d of %d, %d kinds); prose %.1f%%, env %.1f%%, yaml %.1f%%, code %.1f%%",
		pct(all), all.found, all.total, len(byKind), pct(*byForm["prose"]), pct(*byForm["env"]), pct(*byForm["yaml"]), pct(*byForm["code"]))
	if len(byKind) < 150 {
		t.Errorf("%d kinds; want at least 150", len(byKind))
	}
	if pct(all) < 95 {
		t.Errorf("recall %.1f%%, want at least 95%%", pct(all))
	}
	if pct(*byForm["prose"]) < 90 {
		t.Errorf("recall in plain sentences %.1f%%, want at least 90%%", pct(*byForm["prose"]))
	}
	if out := os.Getenv("CONTEXTFS_SECRETS_EVAL"); out != "" {
		var b strings.Builder
		fmt.Fprintf(&b, "| Kind | Prose | .env | YAML | Code |\n|---|---|---|---|---|\n")
		kinds := slices.Sorted(func(yield func(string) bool) {
			for k := range byKind {
				if !yield(k) {
					return
				}
			}
		})
		for _, k := range kinds {
			fmt.Fprintf(&b, "| %s |", k)
			for _, f := range []string{"prose", "env", "yaml", "code"} {
				t := byKind[k][f]
				fmt.Fprintf(&b, " %d/%d |", t.found, t.total)
			}
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "| **all %d kinds** | %.1f%% | %.1f%% | %.1f%% | %.1f%% |\n", len(kinds),
			pct(*byForm["prose"]), pct(*byForm["env"]), pct(*byForm["yaml"]), pct(*byForm["code"]))
		if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestNoFalsePositivesInGeneratedParagraphs scans at least 1,000 generated
// technical paragraphs full of random-looking things that are not secrets
// and expects no finding at all.
func TestNoFalsePositivesInGeneratedParagraphs(t *testing.T) {
	paras := benignParagraphs(1200)
	s := mustScanner(t, secrets.Allow{})
	fp := 0
	for i, p := range paras {
		for _, f := range s.Scan("memory.md", []byte(p)) {
			fp++
			t.Errorf("paragraph %d: %s in %q", i+1, f, p)
		}
	}
	t.Logf("%d paragraphs, %d false positives", len(paras), fp)
}

// evalRuleCases returns a true positive and a placeholder negative for
// each rule the corpus names that has no cases of its own.
func evalRuleCases(have map[string][]ruleCase) map[string][]ruleCase {
	g := newGen(31)
	out := map[string][]ruleCase{}
	for _, k := range evalKinds() {
		if k.rule == "" || len(have[k.rule]) > 0 {
			continue
		}
		tok := k.token(g)
		pre := ""
		if k.vendor != "" {
			pre = k.vendor + " "
		}
		out[k.rule] = append(out[k.rule], ruleCase{"reports " + k.kind, pre + tok, []string{k.rule}})
		{
			n := len(k.prefix)
			ph := tok[:n] + strings.Map(func(r rune) rune {
				if r < 128 && strings.ContainsRune(alnum, r) {
					return 'x'
				}
				return r
			}, tok[n:])
			out[k.rule] = append(out[k.rule], ruleCase{"skips a placeholder " + k.kind, pre + ph, nil})
		}
	}
	return out
}

// benignParagraphs returns n technical paragraphs that hold no secret but
// much that looks random: the false-positive bait of the evaluation.
func benignParagraphs(n int) []string {
	g := newGen(40)
	hx := func(n int) string { return g.s(hexLow, n) }
	uuid := func() string { return hx(8) + "-" + hx(4) + "-4" + hx(3) + "-8" + hx(3) + "-" + hx(12) }
	b64of := func(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
	randBytes := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(g.r.IntN(256))
		}
		return b
	}
	words := []string{"cache", "index", "deploy", "worker", "queue", "schema", "parser", "router", "billing", "search", "session", "export", "import", "report", "ledger", "gateway"}
	w := func() string { return words[g.r.IntN(len(words))] }
	title := func(s string) string { return strings.ToUpper(s[:1]) + s[1:] }
	camel := func() string {
		return "Test" + title(w()) + title(w()) + "Handles" + title(w()) + "With" + strings.ToUpper(w()[:3]) + "V2"
	}
	sentences := []func() string{
		func() string { return "Fixed in commit " + hx(40) + " on main." },
		func() string { return "The regression started at " + hx(12) + " and was reverted by " + hx(7) + "." },
		func() string { return "The image is pinned to ghcr.io/acme/" + w() + "@sha256:" + hx(64) + "." },
		func() string { return "The release tarball's SHA-256 is " + hx(64) + "." },
		func() string { return "Request " + uuid() + " failed with a 502 from the " + w() + " service." },
		func() string { return "Trace ID " + hx(32) + " shows the " + w() + " span taking 3 s." },
		func() string { return "The tenant " + uuid() + " was migrated to the new " + w() + " cluster." },
		func() string {
			return "The fixture's payload is the base64 " + b64of([]byte(`{"user":"`+w()+`","items":[1,2,3],"note":"synthetic test data for the `+w()+` suite"}`)) + " as sent by the client."
		}, func() string {
			return "The header decodes from " + b64of([]byte("This is a plain sentence about the "+w()+" and the "+w()+" modules.")) + " in the logs."
		},
		func() string {
			return "The CA bundle starts with " + b64of([]byte("-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIE"+strings.ToUpper(w())+"\n")) + " in the webhook config."
		},
		func() string {
			return `<script src="/static/` + w() + `.js" integrity="sha384-` + b64of(randBytes(48)) + `" crossorigin="anonymous"></script>`
		},
		func() string { return "go.sum lists golang.org/x/" + w() + " v0.21.0 h1:" + b64of(randBytes(32)) },
		func() string { return `"integrity": "sha512-` + b64of(randBytes(64)) + `"` },
		func() string {
			return "The logo is inlined as data:image/png;base64," + b64of(randBytes(60)) + " in the email."
		},
		func() string {
			return "Add the deploy machine's public key ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + base64.RawStdEncoding.EncodeToString(randBytes(32))[:43] + " deploy@ci to authorized_keys."
		},
		func() string {
			return "The runner's host key is ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBB" + b64of(randBytes(48)) + " and it is pinned."
		},
		func() string {
			return "The docs are pinned on IPFS at Qm" + g.s("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz", 44) + " for the release."
		},
		func() string { return "See https://github.com/acme/" + w() + "/commit/" + hx(40) + " for the fix." },
		func() string {
			return "The dashboard lives at https://grafana.internal/d/" + g.s(alnum, 9) + "/" + w() + "-latency?orgId=1&from=now-6h&to=now."
		},
		func() string {
			return "Upgrade to v" + fmt.Sprint(g.r.IntN(4)) + "." + fmt.Sprint(g.r.IntN(30)) + "." + fmt.Sprint(g.r.IntN(9)) + "-rc.1+build." + fmt.Sprint(g.r.IntN(900)) + " before the freeze."
		},
		func() string {
			return "go.mod pins example.org/" + w() + " v0.0.0-20240611" + g.s(digits, 6) + "-" + hx(12) + " until the tag lands."
		},
		func() string { return "The failing test is " + camel() + " in the " + w() + " package." },
		func() string {
			return "Pod " + w() + "-" + g.s(hexLow, 10) + "-" + g.s(lower+digits, 5) + " was OOM-killed twice last night."
		},
		func() string {
			return "The role arn:aws:iam::" + g.s(digits, 12) + ":role/" + w() + "-deployer is assumed by the pipeline."
		},
		func() string { return "MongoDB document " + hx(24) + " holds the corrupt " + w() + " record." },
		func() string {
			return "Customer cus_" + g.s(alnum, 14) + " saw a double charge on pi_" + g.s(alnum, 24) + "."
		},
		func() string {
			return "The job ID is " + g.s("0123456789ABCDEFGHJKMNPQRSTVWXYZ", 26) + ", a ULID, so it sorts by time."
		},
		func() string { return "The ETag was \"" + hx(40) + "\" before the " + w() + " rewrite." },
		func() string {
			return "/subscriptions/" + uuid() + "/resourceGroups/" + w() + "-rg/providers/Microsoft.Web/sites/" + w() + " is the app."
		},
		func() string {
			return "The password is stored in 1Password under \"" + w() + " admin\" and rotated every 90 days."
		},
		func() string { return "Set GITHUB_TOKEN from ${{ secrets.GITHUB_TOKEN }} in the " + w() + " workflow." },
		func() string { return "The API key is read from $OPENAI_API_KEY at start; never hard-code it." },
		func() string { return "The token is stored in Vault at secret/data/ci/" + w() + " and renewed hourly." },
		func() string {
			return "Put your key in .env as API_KEY=<your key here> and restart the " + w() + " worker."
		},
		func() string {
			return "The signing key is rotated by the " + w() + " job; its key ID is " + hx(16) + "."
		},
		func() string { return "Use Authorization: Bearer $TOKEN for the " + w() + " endpoint." },
		func() string { return "Basic authentication is disabled on the " + w() + " gateway since May." },
		func() string {
			return "The " + w() + " index is keyed by " + g.s(lower, 6) + "_" + g.s(lower, 5) + "_" + g.s(lower, 7) + "_id and sorted by created_at."
		},
		func() string {
			return "The Datadog monitor " + g.s(digits, 8) + " pages when the " + w() + " queue passes 10,000 items."
		},
		func() string { return "The Twilio webhook for the " + w() + " flow retries 3 times." },
		func() string { return "The Heroku app " + w() + "-prod runs on the standard-2x dyno." },
		func() string { return "The Cloudflare zone for " + w() + ".acme.dev has 41 page rules." },
		func() string {
			return "The Sentry issue " + strings.ToUpper(w()) + "-" + g.s(digits, 4) + " has 220 events since the deploy."
		},
		func() string { return "The feature flag " + w() + "_" + w() + "_rollout is at 25% in us-east-1." },
		func() string {
			return "The migration file is 20240611" + g.s(digits, 6) + "_add_" + w() + "_index.sql, applied in " + g.s(digits, 3) + " ms."
		},
		func() string {
			return "The cache key is " + w() + ":" + hx(16) + ":v3 and it expires after 15 minutes."
		},
		func() string {
			return "The GraphQL node ID " + b64of([]byte("04:User"+g.s(digits, 7))) + " is stable across renames."
		},
		func() string { return "The S3 object " + w() + "/2024/06/" + hx(32) + ".parquet is 1.2 GB." },
		func() string {
			return "The Go build ID is " + g.s(b64url, 20) + "/" + g.s(b64url, 20) + " for the release binary."
		},
		func() string { return "The LFS object oid sha256:" + hx(64) + " is missing from the server." },
	}
	paras := make([]string, n)
	for i := range paras {
		k := 2 + g.r.IntN(3)
		parts := make([]string, k)
		for j := range parts {
			parts[j] = sentences[g.r.IntN(len(sentences))]()
		}
		paras[i] = strings.Join(parts, " ")
	}
	return paras
}
