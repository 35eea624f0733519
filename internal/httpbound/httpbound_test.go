package httpbound

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestDrippedBodyIsCut: a request whose body comes a byte at a time is
// cut off once the read time is spent, before the body is whole; a
// normal request is answered.
func TestDrippedBodyIsCut(t *testing.T) {
	read := make(chan error, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := io.ReadAll(r.Body)
		read <- err
		if err != nil {
			return
		}
		io.WriteString(w, "ok")
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := Server(h, 300*time.Millisecond, nil)
	go srv.Serve(ln)
	defer srv.Close()

	resp, err := http.Post("http://"+ln.Addr().String(), "text/plain", strings.NewReader("hello"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if err := <-read; err != nil || resp.StatusCode != 200 {
		t.Fatalf("a normal request: %v, status %d", err, resp.StatusCode)
	}

	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	// 1000 bytes at 20 a second would take 50 s: the server must give
	// up on the body first.
	go func() {
		for range 1000 {
			if _, err := conn.Write([]byte("x")); err != nil {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	if err := <-read; err == nil {
		t.Fatal("a body dripped at 20 bytes a second was read whole")
	}
}

func TestServerBounds(t *testing.T) {
	s := Server(http.NotFoundHandler(), 0, nil)
	if s.ReadTimeout != ReadTimeout || s.ReadHeaderTimeout != HeaderTimeout || s.IdleTimeout != IdleTimeout || s.MaxHeaderBytes != MaxHeaderBytes {
		t.Errorf("bounds %v %v %v %d", s.ReadTimeout, s.ReadHeaderTimeout, s.IdleTimeout, s.MaxHeaderBytes)
	}
	if s := Server(http.NotFoundHandler(), time.Second, nil); s.ReadHeaderTimeout != time.Second {
		t.Errorf("the header timeout %v outlasts the read timeout of 1s", s.ReadHeaderTimeout)
	}
}
