package redact

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/internal/leaktest"
)

func TestRedactCredentials(t *testing.T) {
	jwt := "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvZSJ9." + leaktest.FakeKey(9, 43)
	pemBody := strings.Repeat(leaktest.FakeKey(10, 64)+"\n", 5)
	cases := []struct{ name, in, want string }{
		{"openai legacy", "key: sk-" + leaktest.FakeKey(1, 48) + " end", "key: [REDACTED] end"},
		{"openai project", `OPENAI="sk-proj-` + leaktest.FakeKey(2, 60) + `"`, `OPENAI="[REDACTED]"`},
		{"anthropic", "x-api-key: sk-ant-api03-" + leaktest.FakeKey(3, 93) + "AA\n", "x-api-key: [REDACTED]\n"},
		{"inside a header name", "x-api-key-sk-" + leaktest.FakeKey(4, 40), "x-api-key-[REDACTED]"},
		{"github classic", "token ghp_" + leaktest.FakeKey(5, 36) + ".", "token [REDACTED]."},
		{"github app", "gho_" + leaktest.FakeKey(6, 36), "[REDACTED]"},
		{"github fine-grained", "github_pat_11ABCDEFG0" + leaktest.FakeKey(7, 12) + "_" + leaktest.FakeKey(8, 59), "[REDACTED]"},
		{"slack", "xoxb-123456789012-1234567890123-" + leaktest.FakeKey(11, 24), "[REDACTED]"},
		{"aws access key id", "aws_access_key_id = AKIA" + leaktest.FakeUpper(12, 16) + "\n", "aws_access_key_id = [REDACTED]\n"},
		{"aws session key id", "ASIA" + leaktest.FakeUpper(13, 16), "[REDACTED]"},
		{"google", "https://maps.googleapis.com/x?key=AIza" + leaktest.FakeKey(14, 35) + "&q=1", "https://maps.googleapis.com/x?key=[REDACTED]&q=1"},
		{"bearer keeps the scheme", "Authorization: Bearer " + leaktest.FakeKey(15, 40), "Authorization: Bearer [REDACTED]"},
		{"bearer lower case", `curl -H "authorization: bearer ` + leaktest.FakeKey(16, 30) + `"`, `curl -H "authorization: bearer [REDACTED]"`},
		{"jwt", "session=" + jwt + ";", "session=[REDACTED];"},
		{"private key", "before\n-----BEGIN RSA PRIVATE KEY-----\n" + pemBody + "-----END RSA PRIVATE KEY-----\nafter", "before\n[REDACTED]\nafter"},
		{"private key cut off", "-----BEGIN OPENSSH PRIVATE KEY-----\n" + pemBody + "[... 100 bytes cut ...]", "[REDACTED]\n[... 100 bytes cut ...]"},
		{"private key end only", "[... 100 bytes cut ...]\n" + pemBody + "-----END PRIVATE KEY-----\nok", "[... 100 bytes cut ...]\n[REDACTED]\nok"},
		{"private key in json", `{"k":"-----BEGIN EC PRIVATE KEY-----\n` + leaktest.FakeKey(17, 64) + `\n-----END EC PRIVATE KEY-----\n"}`, `{"k":"[REDACTED]\n"}`},
		{"password in a url", "dsn=postgres://app:s3cr3t-Pw@db.internal:5432/app", "dsn=postgres://app:[REDACTED]@db.internal:5432/app"},
	}
	r := New(nil, nil)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := r.String(c.in); got != c.want {
				t.Errorf("String(%q)\n got %q\nwant %q", c.in, got, c.want)
			}
			if got := string(r.Bytes([]byte(c.in))); got != c.want {
				t.Errorf("Bytes: got %q", got)
			}
		})
	}
}

func TestRedactLeavesOrdinaryText(t *testing.T) {
	r := New([]string{"DESKTOP_SESSION=ubuntu", "KEYBOARD=us-intl-dvorak", "GIT_AUTHOR_NAME=Ada Lovelace"}, nil)
	for _, s := range []string{
		"commit 3f2a9c1e4b5d6f7a8b9c0d1e2f3a4b5c6d7e8f90\nAuthor: Ada Lovelace <ada@example.com>",
		"sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"request 550e8400-e29b-41d4-a716-446655440000 done",
		"github.com/tidwall/gjson v1.20.2 h1:5kBRiyXmVVgOPUQaeGoCAfSvsrHG4rB0v0Qrm5ZAY=",
		"task-force-assignment-list-for-2024-q3 and disk-" + leaktest.FakeKey(20, 30),
		"sk-learn-tutorial-part-two-and-more-notes",
		"the bearer of this letter; Bearer authentication is in RFC 6750",
		"see https://example.com:8080/path@v2 and ssh://git@github.com/x",
		"ASIAPACIFICREGIONSALESTEAM report",
		"layout us-intl-dvorak on ubuntu",
		`{"image":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="}`,
		"eyJ0eXBlIjoidGV4dCJ9 is base64 JSON, not a token",
		"goroutine 1 [running]:\nmain.main()\n\t/home/u/src/main.go:12 +0x1d",
	} {
		if got := r.String(s); got != s {
			t.Errorf("ordinary text changed:\n got %q\nwant %q", got, s)
		}
	}
}

func TestRedactEnvironment(t *testing.T) {
	env := []string{
		"OPENAI_API_KEY=opensesame-123",
		"DB_PASSWORD=hunter22",
		"GITHUB_TOKEN=tok-abcdef",
		"PATH=/usr/bin:/bin",
		"SHORT_TOKEN=abc", // too short to tell from ordinary words
		"SSH_AUTH_SOCK=/tmp/ssh-agent.sock",
	}
	r := New(env, []*regexp.Regexp{regexp.MustCompile(`internal-[0-9]+`)})
	in := "pw=hunter22 key=opensesame-123 tok-abcdef abc /usr/bin /tmp/ssh-agent.sock host internal-42"
	want := "pw=[REDACTED] key=[REDACTED] [REDACTED] abc /usr/bin /tmp/ssh-agent.sock host [REDACTED]"
	if got := r.String(in); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestSecretEnvName(t *testing.T) {
	for name, want := range map[string]bool{
		"OPENAI_API_KEY": true, "GITHUB_TOKEN": true, "AWS_SECRET_ACCESS_KEY": true,
		"DB_PASSWORD": true, "DB_PASS": true, "DB_PWD": true, "MYSQL_ROOT_PASSWD": true,
		"CLIENTSECRET": true, "ACCESSTOKEN": true, "APIKEY": true, "npm_config__auth": true,
		"GPG_PASSPHRASE": true, "SESSION_COOKIE": true, "PRIVATE_KEY": true, "ANTHROPIC_API_KEY": true,
		"KEYBOARD": false, "MONKEY": false, "HOTKEY": false, "GIT_AUTHOR_NAME": false,
		"XAUTHORITY": false, "PWD": false, "OLDPWD": false, "DESKTOP_SESSION": false,
		"SSH_AUTH_SOCK": false, "PASSWORD_STORE_DIR": false, "AWS_ACCESS_KEY_ID": false,
		"GOOGLE_APPLICATION_CREDENTIALS_FILE": false, "BYPASS_CACHE": false, "PATH": false, "HOME": false,
	} {
		if got := secretEnvName(name); got != want {
			t.Errorf("secretEnvName(%q) = %v, want %v", name, got, want)
		}
	}
}

// A nil Redactor still removes the well-known formats: forgetting to make
// one must not leak keys.
func TestNilRedactor(t *testing.T) {
	var r *Redactor
	key := "ghp_" + leaktest.FakeKey(21, 36)
	if got := r.String("t " + key); got != "t [REDACTED]" {
		t.Errorf("got %q", got)
	}
	var out bytes.Buffer
	if err := r.Copy(&out, strings.NewReader(key)); err != nil || out.String() != "[REDACTED]" {
		t.Errorf("Copy: %q, %v", out.String(), err)
	}
}

// logText is ordinary output: log lines with timestamps, paths, hashes,
// UUIDs and numbers, and no secret.
func logText(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		b.WriteString("2026-03-14T09:26:53.589Z INFO  server/handler.go:142 request id=550e8400-e29b-41d4-a716-446655440000 method=GET path=/api/v1/items/")
		b.WriteString(strings.Repeat("7", i%5+1))
		b.WriteString(" status=200 bytes=5120 duration=3.2ms commit=3f2a9c1e4b5d6f7a8b9c0d1e2f3a4b5c6d7e8f90 user_agent=\"Mozilla/5.0 (X11; Linux x86_64)\"\n")
	}
	return b.String()[:n]
}

// Copy gives what String gives, however the reads split the text and
// wherever the secrets fall against the rounds Copy works in.
func TestRedactCopyMatchesString(t *testing.T) {
	env := []string{"SERVICE_TOKEN=" + leaktest.FakeKey(30, 40)}
	r := New(env, nil)
	secrets := []string{
		"sk-" + leaktest.FakeKey(31, 48),
		"Bearer " + leaktest.FakeKey(32, 40),
		leaktest.FakeKey(30, 40),
		"-----BEGIN PRIVATE KEY-----\n" + strings.Repeat(leaktest.FakeKey(33, 64)+"\n", 20) + "-----END PRIVATE KEY-----",
	}
	base := logText(3 * copyChunk)
	for _, at := range []int{copyChunk - 100, copyChunk - 10, copyChunk + 5, 2*copyChunk - 3000, 2*copyChunk + 1} {
		for _, s := range secrets {
			in := base[:at] + " " + s + " " + base[at:]
			// And the same without any newline to cut at.
			for _, text := range []string{in, strings.ReplaceAll(in, "\n", " ")} {
				var out bytes.Buffer
				if err := r.Copy(&out, iotest.HalfReader(strings.NewReader(text))); err != nil {
					t.Fatal(err)
				}
				want := r.String(text)
				if out.String() != want {
					t.Errorf("secret %.12q at %d: Copy differs from String", s, at)
				}
				if strings.Contains(out.String(), s[len(s)-20:]) {
					t.Errorf("secret %.12q at %d leaked", s, at)
				}
			}
		}
	}
}

func BenchmarkRedactorString(b *testing.B) {
	env := []string{"OPENAI_API_KEY=sk-" + leaktest.FakeKey(40, 48), "GITHUB_TOKEN=ghp_" + leaktest.FakeKey(41, 36),
		"DB_PASSWORD=correct-horse-battery", "AWS_SECRET_ACCESS_KEY=" + leaktest.FakeKey(42, 40), "PATH=/usr/bin"}
	r := New(env, nil)
	text := logText(1 << 20)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if r.String(text) != text {
			b.Fatal("ordinary text changed")
		}
	}
}

// BenchmarkRedactorEscapedText redacts output full of JSON escapes (a
// log, written as JSON strings), where secrets may hide behind escapes.
func BenchmarkRedactorEscapedText(b *testing.B) {
	env := []string{"OPENAI_API_KEY=sk-" + leaktest.FakeKey(40, 48), "GITHUB_TOKEN=ghp_" + leaktest.FakeKey(41, 36),
		"DB_PASSWORD=correct-horse-battery", "AWS_SECRET_ACCESS_KEY=" + leaktest.FakeKey(42, 40), "PATH=/usr/bin"}
	r := New(env, nil)
	var buf []byte
	for _, line := range strings.SplitAfter(logText(1<<20), "\n") {
		buf = jsonw.AppendString(buf, line)
		buf = append(buf, ",\n"...)
	}
	text := string(buf)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if r.String(text) != text {
			b.Fatal("ordinary text changed")
		}
	}
}

// BenchmarkRedactorDigitsSecret is BenchmarkRedactorString with a secret
// of digits alone among the others, which makes every number in the text
// be read for its value (numberSpans).
func BenchmarkRedactorDigitsSecret(b *testing.B) {
	env := []string{"OPENAI_API_KEY=sk-" + leaktest.FakeKey(40, 48), "GITHUB_TOKEN=ghp_" + leaktest.FakeKey(41, 36),
		"DB_PASSWORD=correct-horse-battery", "BANK_PIN_SECRET=8675309123", "PATH=/usr/bin"}
	r := New(env, nil)
	text := logText(1 << 20)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if r.String(text) != text {
			b.Fatal("ordinary text changed")
		}
	}
}
