package secrets

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestTuneGeneric(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	alph := map[string]string{
		"base62": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
		"base64": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
		"b64url": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
		"hexlow": "0123456789abcdef",
		"hexup":  "0123456789ABCDEF",
		"lowdig": "abcdefghijklmnopqrstuvwxyz0123456789",
	}
	for _, name := range []string{"base62", "base64", "b64url", "hexlow", "hexup", "lowdig"} {
		a := alph[name]
		line := name + ":"
		for _, n := range []int{16, 20, 24, 32, 40, 64} {
			miss := 0
			const N = 20000
			for range N {
				b := make([]byte, n)
				for i := range b {
					b[i] = a[r.IntN(len(a))]
				}
				if _, ok := genericSecret(candidate{prefix: []byte("api_key="), secret: string(b)}); !ok {
					miss++
				}
			}
			line += fmt.Sprintf(" %d:%.2f%%", n, 100*float64(miss)/N)
		}
		t.Log(line)
	}
	for _, v := range []string{
		"*params.EncryptionTime", "*mcpAuthServerURL,", "2*maxCompilerConcurrency", "k*encodingSize12", "k1024*encodingSize12",
		"C.NL80211_ATTR_KEY_CIPHER", "curve25519-sha256", "mlkem768x25519-sha256", "curve25519-sha256@libssh.org",
		"sk-ecdsa-sha2-nistp256@openssh.com", "c.CredentialSource.IMDSv2SessionTokenURL", "ext۰reflect۰Value۰MapKeys,",
		"Tr0ub4dor&3!Horse#9", "Summer2024!Breeze", "correcthorsebatterystaple42", "amd64RegInfoKeys", "oauth2.Config.TokenSource",
		"base64.StdEncoding", "sha256.New", "github.com/foo/bar/v2", "x509.ParsePKCS1PrivateKey", "v1.2.3-rc.1+build.20240101",
		"2024-01-01T00:00:00Z", "ghp_", "AKIA2E0A8F3B244C9986", "hmacSha256Key2024", "S3cr3tP4ssw0rd!!",
	} {
		_, ok := genericSecret(candidate{prefix: []byte("api_key="), secret: v})
		t.Logf("%-45s flagged=%v entropy=%.2f", v, ok, entropy(v))
	}
}
