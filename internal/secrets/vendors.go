package secrets

import (
	"bytes"
	"encoding/base64"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// vendorFormat is a token format a vendor publishes: a fixed prefix and a
// random part. Gitleaks' rule list maps most of them; the shapes are public
// facts of each vendor's documentation.
type vendorFormat struct {
	id, desc string
	prefixes []string // anchors; the random part starts after the first
	re       string
}

// vendorFormats are the token formats with a prefix distinctive enough to
// be reported wherever the token stands: in a sentence as well as after a
// name such as API_KEY. The formats follow the vendors' documentation and
// gitleaks' public rule set (MIT licence), written anew here; the random
// part of each is checked by vendorToken.
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
	{"huggingface-token", "Hugging Face access token", []string{"hf_", "api_org_"}, `\b(?:hf_|api_org_)[A-Za-z]{34}\b`},
	{"azure-storage-key", "Azure storage account key", []string{"AccountKey="}, `AccountKey=[A-Za-z0-9+/]{86}==`},
	{"square-token", "Square access token or secret", []string{"sq0atp-", "sq0csp-", "EAAA"}, `\b(?:sq0atp-[0-9A-Za-z_-]{22}|sq0csp-[0-9A-Za-z_-]{43}|EAAA[A-Za-z0-9_-]{60})`},
	{"linear-key", "Linear API key or OAuth token", []string{"lin_api_", "lin_oauth_"}, `\b(?:lin_api_[A-Za-z0-9]{40}|lin_oauth_[a-f0-9]{64})\b`},
	{"postman-key", "Postman API key", []string{"PMAK-"}, `\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b`},
	{"doppler-token", "Doppler token", []string{"dp.pt.", "dp.st.", "dp.ct.", "dp.sa.", "dp.scim.", "dp.audit."}, `\bdp\.(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9]{40,44}\b`},
	{"pulumi-token", "Pulumi access token", []string{"pul-"}, `\bpul-[a-f0-9]{40}\b`},
	{"grafana-token", "Grafana service account, cloud or API token", []string{"glsa_", "glc_", "eyJrIjoi"}, `\b(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,400}={0,2}|eyJrIjoi[A-Za-z0-9]{70,400}={0,2})`},
	{"newrelic-key", "New Relic API, insert, browser or license key", []string{"NRAK-", "NRAA-", "NRII-", "NRJS-", "NRAL"}, `\b(?:NRA[AK]-[A-Z0-9]{27}|NRII-[A-Za-z0-9_-]{32}|NRJS-[a-f0-9]{19}|[a-f0-9]{36}NRAL)\b`},
	{"databricks-token", "Databricks access token", []string{"dapi"}, `\bdapi[a-f0-9]{32}(?:-[0-9])?\b`},
	{"vault-token", "HashiCorp Vault token", []string{"hvs.", "hvb.", "hvr."}, `\bhv[sbr]\.[A-Za-z0-9_-]{90,}`},
	{"terraform-token", "Terraform Cloud token", []string{".atlasv1."}, `\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}`},
	{"age-secret-key", "age secret key", []string{"AGE-SECRET-KEY-1"}, `\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b`},
	{"mailchimp-key", "Mailchimp API key", []string{"-us"}, `\b[0-9a-f]{32}-us[0-9]{1,2}\b`},
	{"stripe-webhook-secret", "Stripe webhook signing secret", []string{"whsec_"}, `\bwhsec_[A-Za-z0-9]{32,}`},
	{"figma-token", "Figma personal access token", []string{"figd_"}, `\bfigd_[A-Za-z0-9_-]{40}\b`},
	{"flyio-token", "Fly.io access token", []string{"fo1_", "FlyV1 fm", "fm1a_", "fm1r_", "fm2_"}, `\b(?:fo1_[A-Za-z0-9_-]{43}|(?:FlyV1 )?fm(?:1[ar]|2)_[A-Za-z0-9+/_=,-]{100,})`},
	{"alibaba-key-id", "Alibaba Cloud access key ID", []string{"LTAI"}, `\bLTAI[A-Za-z0-9]{20}\b`},
	{"google-oauth-secret", "Google OAuth client secret", []string{"GOCSPX-"}, `\bGOCSPX-[A-Za-z0-9_-]{28}\b`},
	{"google-oauth-token", "Google OAuth access or refresh token", []string{"ya29.", "1//0"}, `(?:\bya29\.[0-9A-Za-z_-]{30,}|\b1//0[0-9A-Za-z_-]{30,})`},
	{"supabase-token", "Supabase access token or secret key", []string{"sbp_", "sb_secret_"}, `\b(?:sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_-]{31,})\b`},
	{"replicate-token", "Replicate API token", []string{"r8_"}, `\br8_[A-Za-z0-9]{37}\b`},
	{"groq-key", "Groq API key", []string{"gsk_"}, `\bgsk_[A-Za-z0-9]{52}\b`},
	{"slack-app-token", "Slack app-level token", []string{"xapp-"}, `\bxapp-[0-9]-[A-Z0-9]+-[0-9]+-[a-f0-9]{32,}\b`},
	{"dockerhub-token", "Docker Hub personal or organization access token", []string{"dckr_pat_", "dckr_oat_"}, `\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{27,}`},
	{"planetscale-token", "PlanetScale token or password", []string{"pscale_tkn_", "pscale_pw_", "pscale_oauth_"}, `\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_=-]{32,64}`},
	{"brevo-key", "Brevo (Sendinblue) API or SMTP key", []string{"xkeysib-", "xsmtpsib-"}, `\bx(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}\b`},
	{"sentry-token", "Sentry organization or user auth token", []string{"sntrys_", "sntryu_"}, `\b(?:sntrys_eyJ[A-Za-z0-9+/]{20,400}={0,2}_[A-Za-z0-9+/]{43}|sntryu_[a-f0-9]{64}\b)`},
	{"rubygems-key", "RubyGems API key", []string{"rubygems_"}, `\brubygems_[a-f0-9]{48}\b`},
	{"gitlab-other-token", "GitLab runner, deploy, trigger, feed, agent, OAuth or other token", []string{"glptt-", "glrt-", "gldt-", "glft-", "glimt-", "glagent-", "gloas-", "glcbt-", "glsoat-", "glffct-", "GR1348941"},
		`\b(?:glptt-[0-9a-f]{40}|glrt-[0-9A-Za-z_-]{20,}|gldt-[0-9A-Za-z_-]{20,}|glft-[0-9A-Za-z_-]{20,}|glimt-[0-9A-Za-z_-]{25,}|glagent-[0-9A-Za-z_-]{50,}|gloas-[0-9A-Za-z_-]{64,}|glcbt-[0-9A-Za-z]{1,5}_[0-9A-Za-z_-]{20,}|glsoat-[0-9A-Za-z_-]{20,}|glffct-[0-9A-Za-z_-]{20,}|GR1348941[0-9A-Za-z_-]{20,})`},
	{"heroku-key", "Heroku API key", []string{"HRKU-AA"}, `\bHRKU-AA[0-9A-Za-z_-]{58}`},
	{"openshift-token", "OpenShift user token", []string{"sha256~"}, `\bsha256~[A-Za-z0-9_-]{43}`},
	{"perplexity-key", "Perplexity API key", []string{"pplx-"}, `\bpplx-[A-Za-z0-9]{48}\b`},
	{"xai-key", "xAI API key", []string{"xai-"}, `\bxai-[A-Za-z0-9]{80}\b`},
	{"pinecone-key", "Pinecone API key", []string{"pcsk_"}, `\bpcsk_[A-Za-z0-9]{4,8}_[A-Za-z0-9]{40,100}\b`},
	{"langsmith-key", "LangSmith API key", []string{"lsv2_pt_", "lsv2_sk_"}, `\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\b`},
	{"dynatrace-token", "Dynatrace API token", []string{"dt0c01."}, `\bdt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}\b`},
	{"atlassian-token", "Atlassian API token", []string{"ATATT3"}, `\bATATT3[A-Za-z0-9_=-]{150,}`},
	{"bitbucket-app-password", "Bitbucket app password", []string{"ATBB"}, `\bATBB[A-Za-z0-9]{32}\b`},
	{"onepassword-token", "1Password service account token or secret key", []string{"ops_eyJ", "A3-"}, `\b(?:ops_eyJ[A-Za-z0-9+/]{250,}={0,3}|A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\b)`},
	{"adobe-secret", "Adobe client secret", []string{"p8e-"}, `\bp8e-[A-Za-z0-9]{32}\b`},
	{"airtable-token", "Airtable personal access token", []string{"pat"}, `\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b`},
	{"artifactory-token", "JFrog Artifactory API key or reference token", []string{"AKCp", "cmVmd"}, `\b(?:AKCp[A-Za-z0-9]{69}|cmVmd[A-Za-z0-9]{59})\b`},
	{"aws-bedrock-key", "Amazon Bedrock API key", []string{"ABSK"}, `\bABSK[A-Za-z0-9+/]{109,269}={0,2}`},
	{"aws-session-token", "AWS session token", []string{"IQoJb3JpZ2luX2Vj", "FwoGZXIvYXdzE"}, `\b(?:IQoJb3JpZ2luX2Vj|FwoGZXIvYXdzE)[A-Za-z0-9+/]{100,}={0,2}`},
	{"azure-ad-client-secret", "Azure AD (Entra ID) client secret", []string{"Q~"}, `\b[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}`},
	{"azure-devops-token", "Azure DevOps personal access token", []string{"AZDO"}, `\b[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}\b`},
	{"clickhouse-key", "ClickHouse Cloud API secret", []string{"4b1d"}, `\b4b1d[A-Za-z0-9]{38}\b`},
	{"clojars-token", "Clojars deploy token", []string{"CLOJARS_"}, `\bCLOJARS_[a-z0-9]{60}\b`},
	{"cloudflare-origin-ca-key", "Cloudflare Origin CA key", []string{"v1.0-"}, `\bv1\.0-[a-f0-9]{24}-[a-f0-9]{146}\b`},
	{"defined-networking-token", "Defined Networking API token", []string{"dnkey-"}, `\bdnkey-[A-Za-z0-9=_-]{26}-[A-Za-z0-9=_-]{52}`},
	{"duffel-token", "Duffel API token", []string{"duffel_live_", "duffel_test_"}, `\bduffel_(?:test|live)_[A-Za-z0-9_=-]{43}`},
	{"easypost-key", "EasyPost API key", []string{"EZAK", "EZTK"}, `\bEZ[AT]K[A-Za-z0-9]{54}\b`},
	{"facebook-token", "Facebook (Meta) access token", []string{"EAAB", "EAAC", "EAAG", "EAAI", "EAAM"}, `\bEAA[BCGIM][A-Za-z0-9]{100,}`},
	{"flutterwave-key", "Flutterwave secret or encryption key", []string{"FLWSECK"}, `\bFLWSECK(?:_TEST)?-[a-h0-9]{12,32}(?:-X)?\b`},
	{"frameio-token", "Frame.io API token", []string{"fio-u-"}, `\bfio-u-[A-Za-z0-9_=-]{64}`},
	{"harness-token", "Harness personal or service account token", []string{"pat.", "sat."}, `\b(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}\b`},
	{"infracost-key", "Infracost API key", []string{"ico-"}, `\bico-[A-Za-z0-9]{32}\b`},
	{"intra42-secret", "42 Intra client secret", []string{"s-s4t2"}, `\bs-s4t2(?:ud|af)-[a-f0-9]{64}\b`},
	{"maxmind-key", "MaxMind license key", []string{"_mmk"}, `\b[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk\b`},
	{"notion-token", "Notion integration token", []string{"ntn_", "secret_"}, `\b(?:ntn_[0-9]{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43})\b`},
	{"octopus-deploy-key", "Octopus Deploy API key", []string{"API-"}, `\bAPI-[A-Z0-9]{26,32}\b`},
	{"prefect-token", "Prefect API key", []string{"pnu_"}, `\bpnu_[A-Za-z0-9]{36}\b`},
	{"readme-key", "ReadMe API key", []string{"rdme_"}, `\brdme_[a-z0-9]{70}\b`},
	{"scalingo-token", "Scalingo API token", []string{"tk-us-"}, `\btk-us-[A-Za-z0-9_-]{48}`},
	{"settlemint-token", "SettleMint access token", []string{"sm_aat_", "sm_pat_", "sm_sat_"}, `\bsm_(?:aat|pat|sat)_[A-Za-z0-9]{16}\b`},
	{"shippo-token", "Shippo API token", []string{"shippo_live_", "shippo_test_"}, `\bshippo_(?:live|test)_[a-fA-F0-9]{40}\b`},
	{"sourcegraph-token", "Sourcegraph access token", []string{"sgp_"}, `\bsgp_(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}\b`},
	{"typeform-token", "Typeform personal access token", []string{"tfp_"}, `\btfp_[A-Za-z0-9_.=-]{59}`},
	{"sonarqube-token", "SonarQube token", []string{"squ_", "sqp_", "sqa_"}, `\bsq[uap]_[a-f0-9]{40}\b`},
	{"mapbox-secret-token", "Mapbox secret access token", []string{"sk.eyJ"}, `\bsk\.eyJ[A-Za-z0-9_-]{50,}\.[A-Za-z0-9_-]{20,}`},
	{"twitter-bearer-token", "Twitter (X) bearer token", []string{"AAAAAAAAAAAAAAAAAAAAA"}, `\bA{21,22}[A-Za-z0-9%]{80,100}`},
	{"dropbox-token", "Dropbox access token", []string{"sl."}, `\bsl\.(?:u\.)?[A-Za-z0-9_-]{130,}`},
	{"yandex-key", "Yandex Cloud API key", []string{"AQVN"}, `\bAQVN[A-Za-z0-9_-]{35,38}\b`},
	{"slack-config-token", "Slack configuration access or refresh token", []string{"xoxe."}, `\bxoxe\.xox[bp]-[0-9]-[A-Za-z0-9]{100,}`},
	{"teams-webhook", "Microsoft Teams incoming webhook URL", []string{"webhook.office.com"}, `[a-z0-9-]+\.webhook\.office\.com/webhookb2/[a-z0-9-]{36}@[a-z0-9-]{36}/IncomingWebhook/[A-Za-z0-9]{32}/[a-z0-9-]{36}`},
	{"braintree-token", "PayPal Braintree access token", []string{"access_token$production$"}, `access_token\$production\$[0-9a-z]{16}\$[0-9a-f]{32}`},
	{"plaid-token", "Plaid access token", []string{"access-production-", "access-development-", "access-sandbox-"}, `\baccess-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`},
	{"openrouter-key", "OpenRouter API key", []string{"sk-or-v1-"}, `\bsk-or-v1-[a-f0-9]{64}\b`},
	{"tavily-key", "Tavily API key", []string{"tvly-"}, `\btvly-(?:dev-|prod-)?[A-Za-z0-9]{32}\b`},
	{"jina-key", "Jina AI API key", []string{"jina_"}, `\bjina_[A-Za-z0-9_-]{60,}`},
	{"fireworks-key", "Fireworks AI API key", []string{"fw_"}, `\bfw_[A-Za-z0-9]{24}\b`},
	{"elevenlabs-key", "ElevenLabs API key", []string{"sk_"}, `\bsk_[a-f0-9]{48}\b`},
	{"langfuse-secret-key", "Langfuse secret key", []string{"sk-lf-"}, `\bsk-lf-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`},
	{"cerebras-key", "Cerebras API key", []string{"csk-"}, `\bcsk-[a-z0-9]{48}\b`},
	{"anyscale-key", "Anyscale API key", []string{"esecret_"}, `\besecret_[A-Za-z0-9]{26}\b`},
	{"netlify-token", "Netlify personal access token", []string{"nfp_"}, `\bnfp_[A-Za-z0-9]{36,40}\b`},
	{"render-key", "Render API key", []string{"rnd_"}, `\brnd_[A-Za-z0-9]{32}\b`},
	{"neon-key", "Neon API key", []string{"napi_"}, `\bnapi_[a-z0-9]{64}\b`},
	{"buildkite-token", "Buildkite API access token", []string{"bkua_"}, `\bbkua_[a-f0-9]{40}\b`},
	{"circleci-token", "CircleCI personal or project API token", []string{"CCIPAT_", "CCIPRJ_"}, `\bCCIP(?:AT|RJ)_[A-Za-z0-9]{22}_[a-f0-9]{40}\b`},
	{"posthog-personal-key", "PostHog personal API key", []string{"phx_"}, `\bphx_[A-Za-z0-9]{43,47}\b`},
	{"honeycomb-key", "Honeycomb API key", []string{"hcaik_", "hcxik_"}, `\bhc[ax]ik_[a-z0-9]{50,64}\b`},
	{"resend-key", "Resend API key", []string{"re_"}, `\bre_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}\b`},
	{"nuget-key", "NuGet API key", []string{"oy2"}, `\boy2[a-z0-9]{43}\b`},
	{"crates-io-token", "crates.io API token", []string{"cio"}, `\bcio[A-Za-z0-9]{32}\b`},
	{"contentful-token", "Contentful personal access token", []string{"CFPAT-"}, `\bCFPAT-[A-Za-z0-9_-]{43}\b`},
	{"firebase-fcm-key", "Firebase Cloud Messaging server key", []string{":APA91b"}, `\b[A-Za-z0-9_-]{11}:APA91b[A-Za-z0-9_-]{134}`},
}

// weakPrefix lists the formats whose prefix is short or common in
// ordinary text (API-, fw_, re_, cio, pat): their random part must also
// hold a digit and not read as words, so that API-VERSIONING-IS-STABLE or
// an identifier such as re_compile_patterns_for_all is not a token.
var weakPrefix = map[string]bool{
	"octopus-deploy-key": true, "fireworks-key": true, "crates-io-token": true,
	"resend-key": true, "render-key": true, "airtable-token": true,
	"clickhouse-key": true, "dropbox-token": true, "azure-ad-client-secret": true,
	"notion-token": true, "harness-token": true, "infracost-key": true,
	"twilio-api-key": true, "mailgun-key": true, "anyscale-key": true,
	"maxmind-key": true, "tavily-key": true, "netlify-token": true,
}

// contextFormat is a credential with no prefix of its own, such as
// Datadog's 32 hex digits: it is reported only on a line that names its
// vendor, in a sentence or in a variable's name.
type contextFormat struct {
	id, desc string
	names    []string // anchors: the vendor's name as it is spelled in text and variables
	re       string   // the credential
}

var contextFormats = []contextFormat{
	{"datadog-key", "Datadog API or application key (on a line naming Datadog)", []string{"datadog", "Datadog", "DATADOG", "DD_API_KEY", "DD_APP_KEY", "DD_APPLICATION_KEY"}, `\b(?:[a-f0-9]{32}|[a-f0-9]{40})\b`},
	{"heroku-legacy-key", "Heroku API key in UUID form (on a line naming Heroku)", []string{"heroku", "Heroku", "HEROKU"}, uuidRE},
	{"cloudflare-token", "Cloudflare API token or global key (on a line naming Cloudflare)", []string{"cloudflare", "Cloudflare", "CLOUDFLARE", "CF_API_TOKEN", "CF_API_KEY"}, `\b(?:[A-Za-z0-9_-]{40}|[a-f0-9]{37})\b`},
	{"algolia-key", "Algolia API key (on a line naming Algolia)", []string{"algolia", "Algolia", "ALGOLIA"}, `\b[a-f0-9]{32}\b`},
	{"okta-token", "Okta API token (on a line naming Okta)", []string{"okta", "Okta", "OKTA"}, `\b00[A-Za-z0-9_-]{40}\b`},
	{"discord-bot-token", "Discord bot token (on a line naming Discord)", []string{"discord", "Discord", "DISCORD"}, `\b[MN][A-Za-z0-9]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}\b`},
	{"snyk-token", "Snyk API token (on a line naming Snyk)", []string{"snyk", "Snyk", "SNYK"}, uuidRE},
	{"postmark-token", "Postmark server or account token (on a line naming Postmark)", []string{"postmark", "Postmark", "POSTMARK"}, uuidRE},
	{"wandb-key", "Weights & Biases API key (on a line naming W&B)", []string{"wandb", "WANDB", "Weights & Biases", "W&B"}, `\b[a-f0-9]{40}\b`},
	{"cohere-key", "Cohere API key (on a line naming Cohere)", []string{"cohere", "Cohere", "COHERE", "CO_API_KEY"}, `\b[A-Za-z0-9]{40}\b`},
	{"mistral-key", "Mistral AI API key (on a line naming Mistral)", []string{"mistral", "Mistral", "MISTRAL"}, `\b[A-Za-z0-9]{32}\b`},
	{"together-key", "Together AI API key (on a line naming Together AI)", []string{"together.ai", "togetherai", "Together AI", "TOGETHER"}, `\b[a-f0-9]{64}\b`},
	{"sentry-legacy-token", "Sentry auth token of 64 hex digits (on a line naming Sentry)", []string{"sentry", "Sentry", "SENTRY"}, `\b[a-f0-9]{64}\b`},
	{"pagerduty-key", "PagerDuty API key (on a line naming PagerDuty)", []string{"pagerduty", "PagerDuty", "PAGERDUTY"}, `(?:^|[^A-Za-z0-9+_-])(u\+[A-Za-z0-9_+-]{18}|[A-Za-z0-9_+-]{20})(?:$|[^A-Za-z0-9+_-])`},
}

const uuidRE = `\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b`

// vendorRules returns a rule for each vendor format, then one for each
// context format, followed by the rules for secrets with no vendor.
func vendorRules() []rule {
	var out []rule
	for _, v := range vendorFormats {
		out = append(out, rule{
			id: v.id, desc: v.desc, anchors: anchors(v.prefixes...),
			find: findRegexp(v.re), check: vendorToken(v.prefixes, weakPrefix[v.id]), rank: rankVendor,
		})
	}
	out = append(out, rule{
		id:   "twilio-auth-token",
		desc: "Twilio auth token (32 hex characters on a line naming Twilio)",
		// Twilio's auth token has no prefix: the line must name Twilio.
		anchors: anchors("twilio", "Twilio", "TWILIO"),
		find:    findRegexp(`\b[a-f0-9]{32}\b`),
		check:   contextToken([]string{"twilio", "Twilio", "TWILIO"}),
		rank:    rankVendor,
	})
	for _, v := range contextFormats {
		out = append(out, rule{
			id: v.id, desc: v.desc, anchors: anchors(v.names...),
			find: findRegexp(v.re), check: contextToken(v.names), rank: rankVendor,
		})
	}
	return append(out,
		rule{
			id:      "bearer-token",
			desc:    "random token after \"Bearer\" (an HTTP Authorization header)",
			anchors: anchors("Bearer ", "bearer ", "BEARER "),
			find:    findRegexp(`(?i:\bbearer)[ \t]+([A-Za-z0-9._~+/-]{20,}=*)`),
			check:   bearerToken,
			rank:    rankGeneric,
		},
		rule{
			id:      "basic-auth-header",
			desc:    "user and password in an HTTP Basic Authorization header",
			anchors: anchors("Basic ", "basic "),
			find:    findRegexp(`(?i:\bbasic)[ \t]+([A-Za-z0-9+/]{12,}={0,2})(?:$|[^A-Za-z0-9+/=])`),
			check:   basicAuth,
			rank:    rankGeneric,
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
			id:      "secret-in-prose",
			desc:    "token, key or secret given in a sentence (\"the API token is ...\")",
			anchors: anchors("token", "Token", "TOKEN", "key", "Key", "KEY", "secret", "Secret", "SECRET"),
			find:    findProseSecrets,
			check:   proseSecret,
			rank:    rankGeneric,
		},
		rule{
			id:   "high-entropy-string",
			desc: "long random string of mixed case and digits standing alone",
			// Every random token of this length holds a digit.
			anchors: anchors("0", "1", "2", "3", "4", "5", "6", "7", "8", "9"),
			find:    findRandomRuns,
			check:   bareRandom,
			rank:    rankBare,
		},
	)
}

// vendorToken returns a check for a vendor token whose random part follows
// one of prefixes: a placeholder such as npm_xxxx… is not a token. For a
// weak prefix (see weakPrefix), the random part must also hold a digit and,
// unless it is hex, not read as words.
func vendorToken(prefixes []string, weak bool) func(candidate) (string, bool) {
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
		if weak && (!hasDigit(body) || !isHex(body) && wordy(body)) {
			return c.secret, false
		}
		return c.secret, !placeholder(body) && entropy(body) >= 3
	}
}

// contextToken accepts a credential found on a line naming its vendor if
// it looks random (digits and letters, no run or placeholder, not words)
// and the vendor is named close before it, in the same sentence or in the
// name it is assigned to: "Datadog API key 3f…", DD_API_KEY=3f…. A digest
// or an ID elsewhere on a long line that mentions Datadog is not one, nor
// is a value glued to a path or a label (sha256:…, /subscriptions/…).
func contextToken(names []string) func(c candidate) (string, bool) {
	return func(c candidate) (string, bool) {
		s := c.secret
		bare := strings.ReplaceAll(s, "-", "")
		letters := strings.ContainsFunc(bare, isLetter)
		if !letters || !hasDigit(bare) && !(hasUpper(bare) && hasLower(bare)) || placeholder(s) || entropy(bare) < 3.2 || !isHex(bare) && wordy(bare) {
			return s, false
		}
		return s, namedBefore(c.before, names)
	}
}

// namedBefore reports whether one of names occurs in the 80 bytes before
// a candidate, within its line and sentence, and the candidate is not
// glued to a path, a label or an address (/x, sha256:x, @x, #x).
func namedBefore(before []byte, names []string) bool {
	if n := len(before); n > 0 && strings.IndexByte(":/@#.", before[n-1]) >= 0 {
		return false
	}
	w := before[max(0, len(before)-80):]
	w = w[bytes.LastIndexByte(w, '\n')+1:]
	if i := bytes.LastIndex(w, []byte(". ")); i >= 0 {
		w = w[i+2:]
	}
	for _, n := range names {
		if bytes.Contains(w, []byte(n)) {
			return true
		}
	}
	return false
}

// bearerToken accepts a random token after "Bearer": not a variable, a
// placeholder or words.
func bearerToken(c candidate) (string, bool) {
	s := strings.TrimRight(c.secret, "=")
	if len(s) < 20 || placeholder(s) || !hasDigit(s) || !strings.ContainsFunc(s, isLetter) || wordy(s) {
		return c.secret, false
	}
	return c.secret, entropy(s) >= 3.5
}

// basicAuth accepts the credentials of a Basic Authorization header: base64
// of "user:password" with a password that is not a placeholder.
func basicAuth(c candidate) (string, bool) {
	b, err := base64.StdEncoding.DecodeString(c.secret)
	if err != nil {
		return c.secret, false
	}
	user, pw, ok := strings.Cut(string(b), ":")
	if !ok || pw == "" || !utf8.ValidString(pw) || strings.ContainsFunc(pw, unicode.IsControl) {
		return c.secret, false
	}
	return c.secret, len(pw) >= 4 && pw != user && !placeholder(pw)
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

// proseNouns and proseVerbs make the sentences findProseSecrets looks
// for: "the new API token is X", "the signing key was set to X". Longer
// verbs come first, so that "is set to" is not taken for "is".
var (
	proseNouns = [][]byte{[]byte("token"), []byte("key"), []byte("secret")}
	proseVerbs = [][]byte{[]byte("was set to"), []byte("is set to"), []byte("is now"), []byte("set to"), []byte("reads"), []byte("was"), []byte("is")}
)

// findProseSecrets finds a token, key or secret stated in a sentence.
// Assignments (token: x) are the generic rule's. It is written by hand:
// the equivalent case-insensitive regular expression cost two thirds of
// the scan of a typical memory, trying every "key" of its text.
func findProseSecrets(line []byte) []span {
	var spans []span
	lower := bytes.ToLower(line) // ASCII letters keep their offsets
	if len(lower) != len(line) {
		return nil // a case mapping changed the length; rare, and only in non-ASCII text
	}
	for _, noun := range proseNouns {
		for off := 0; ; {
			i := bytes.Index(lower[off:], noun)
			if i < 0 {
				break
			}
			start := off + i
			off = start + len(noun)
			if start > 0 && (isAlnum(lower[start-1]) || lower[start-1] == '_') {
				continue
			}
			j := off
			if j >= len(line) || !isSpace(line[j]) {
				continue
			}
			for j < len(line) && isSpace(line[j]) {
				j++
			}
			verb := false
			for _, v := range proseVerbs {
				if bytes.HasPrefix(lower[j:], v) && j+len(v) < len(line) && isSpace(line[j+len(v)]) {
					j += len(v)
					verb = true
					break
				}
			}
			if !verb {
				continue
			}
			for j < len(line) && isSpace(line[j]) {
				j++
			}
			if j < len(line) && isQuote(line[j]) {
				j++
			}
			if r, n := utf8.DecodeRune(line[j:]); r == '“' || r == '‘' {
				j += n
			}
			k := j
			for k < len(line) && !isSpace(line[k]) && !isQuote(line[k]) && !bytes.HasPrefix(line[k:], []byte("”")) && !bytes.HasPrefix(line[k:], []byte("’")) {
				k++
			}
			for k > j && strings.IndexByte(".,;:!?)", line[k-1]) >= 0 {
				k--
			}
			if k-j >= 16 && k-j <= 200 {
				spans = append(spans, span{start: start, end: k, secretStart: j, secretEnd: k})
				off = k
			}
		}
	}
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	return spans
}

// proseSecret accepts a stated token that looks random: long, with digits
// and letters, not words, a variable, a path or a placeholder ("the token
// is stored in Vault" states no token).
func proseSecret(c candidate) (string, bool) {
	s := c.secret
	if len(s) < 16 || placeholder(s) || strings.IndexByte("$%{<[(@/~", s[0]) >= 0 || strings.ContainsAny(s, ":/") {
		return s, false // a variable, a path, a URL, a cache key (name:hash:v3)
	}
	if !hasDigit(s) || !strings.ContainsFunc(s, isLetter) || wordy(s) {
		return s, false
	}
	threshold := 3.5
	if isHex(strings.ReplaceAll(s, "-", "")) {
		threshold = 3
	}
	return s, entropy(s) >= threshold
}

// findRandomRuns reports each run of at least 32 base64 characters that
// stands alone: not part of an identifier, a dotted name, a path with a
// leading slash, or a checksum written with its algorithm's label (h1:,
// sha256-, base64,). bareRandom judges the run itself.
func findRandomRuns(line []byte) []span {
	var spans []span
	for i := 0; i < len(line); {
		if !isRunByte(line[i]) {
			i++
			continue
		}
		j := i
		for j < len(line) && isRunByte(line[j]) {
			j++
		}
		start := i
		i = j
		if j-start < 32 {
			continue
		}
		if start > 0 && strings.IndexByte("_.:-\\", line[start-1]) >= 0 {
			continue // part of a longer name, a label (h1:, sha256-) or a path
		}
		if bytes.HasSuffix(bytes.ToLower(line[max(0, start-7):start]), []byte("base64,")) {
			continue // a data: URL
		}
		spans = append(spans, span{start: start, end: j, secretStart: start, secretEnd: j})
	}
	return spans
}

func isRunByte(b byte) bool { return isAlnum(b) || b == '+' || b == '/' || b == '=' }

// bareRandom accepts a token standing alone that is random by every
// measure: 32 or more characters mixing upper case, lower case and digits,
// high in entropy, not words, not hex (commit IDs, digests), not a path,
// not base64 of text, not an SSH public key or an IPFS content ID.
func bareRandom(c candidate) (string, bool) {
	s := strings.TrimRight(c.secret, "=")
	if len(s) < 32 || isHex(strings.ReplaceAll(s, "-", "")) || placeholder(s) ||
		!hasDigit(s) || !hasUpper(s) || !hasLower(s) || wordy(strings.ReplaceAll(s, "/", "")) {
		return c.secret, false
	}
	// A slash is part of base64, and of paths and of IDs such as Go's
	// build IDs (two parts of 20). Of the keys that hold one, AWS secret
	// keys are 40 characters long, base64 of 32 bytes (WireGuard, HMAC
	// keys) ends in '=', longer keys are 60 and more.
	if strings.Contains(s, "/") && (len(s) != 40 && len(s) < 60 && !strings.HasSuffix(c.secret, "=") || s[0] == '/' ||
		strings.HasSuffix(s, "/") || strings.Contains(s, "//") || pathLike(s)) {
		return c.secret, false
	}
	if identifier(s) {
		return c.secret, false // TestSchemaExportHandlesBillingWithPARV2
	}
	if strings.HasPrefix(s, "AAAA") || ipfsCID(s) || encodedText(c.secret) {
		return c.secret, false // an SSH public key's wire format, a content ID, encoded text
	}
	// Lines of an armored key are the private-key rule's.
	if bytes.Contains(c.rest[:min(len(c.rest), 8<<10)], []byte("-----END")) ||
		bytes.LastIndex(c.before, []byte("-----BEGIN")) > bytes.LastIndex(c.before, []byte("-----END")) {
		return c.secret, false
	}
	// A value assigned or compared (name: v, name = "v", x == v) is the
	// generic rule's to judge by its name; this rule is for tokens in prose
	// and in code that passes them to a call.
	line := c.before[bytes.LastIndexByte(c.before, '\n')+1:]
	if line = bytes.TrimRight(line, " \t\"'`*"); len(line) > 0 && (line[len(line)-1] == ':' || line[len(line)-1] == '=') {
		return c.secret, false
	}
	return c.secret, entropy(s) >= 4.5
}

// identifier reports whether s reads as a name made of words in camel
// case: split where a lower-case letter or a digit meets a capital and
// where letters meet digits, a name's fragments average four characters
// or more, those of a random string about two.
func identifier(s string) bool {
	frags := 1
	for i := 1; i < len(s); i++ {
		a, b := s[i-1], s[i]
		if !isAlnum(a) || !isAlnum(b) {
			frags++
			continue
		}
		da, db := '0' <= a && a <= '9', '0' <= b && b <= '9'
		if da != db || isUpper(b) && !isUpper(a) {
			frags++
		}
	}
	return len(s) >= 4*frags
}

// pathLike reports whether s, which holds a slash, reads as a path: one of
// its parts is a lower-case word of four letters or more (src/main/java,
// lib/python3/site), which a random part rarely is.
func pathLike(s string) bool {
	for part := range strings.SplitSeq(s, "/") {
		if len(part) >= 4 && strings.Trim(part, "abcdefghijklmnopqrstuvwxyz") == "" {
			return true
		}
	}
	return false
}

// ipfsCID reports whether s is an IPFS content ID of version 0: "Qm" and
// 44 base58 characters.
func ipfsCID(s string) bool {
	return len(s) == 46 && strings.HasPrefix(s, "Qm") &&
		strings.Trim(s, "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz") == ""
}

// encodedText reports whether s is base64 of text (a JSON header, a
// certificate, a sentence) rather than of random bytes: a key decodes to
// bytes of which about a third are printable, text to nothing else.
func encodedText(s string) bool {
	if strings.ContainsAny(s, "-_") {
		return false
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
	}
	if err != nil || len(b) == 0 {
		return false
	}
	printable := 0
	for _, c := range b {
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\r' || c == '\t' {
			printable++
		}
	}
	return printable*10 >= len(b)*9
}
