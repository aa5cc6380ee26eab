package console_test

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"logistics/internal/apptest"
	"logistics/internal/browsertest"
)

// TestConsoleScopeBoxInsideCard: the new-token form's scope box (every
// scope, one checkbox each) lies inside its form and its card, at a
// desktop width and at a phone's; so do the checkboxes in it.
func TestConsoleScopeBoxInsideCard(t *testing.T) {
	s := apptest.New(t)
	for _, size := range [][2]int{{1280, 800}, {800, 900}, {390, 844}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			ctx := browsertest.New(t, browsertest.WithWindowSize(size[0], size[1]))
			var out struct {
				Scopes   int
				Overflow []string
			}
			err := chromedp.Run(ctx,
				chromedp.EmulateViewport(int64(size[0]), int64(size[1])),
				signIn(s),
				chromedp.Click("#nav-profile", chromedp.ByQuery),
				chromedp.WaitVisible("#api-tokens", chromedp.ByQuery),
				chromedp.Click("#new-token", chromedp.ByQuery),
				chromedp.WaitVisible("#token-form", chromedp.ByQuery),
				chromedp.Poll(`document.querySelectorAll('#scope-list input').length > 0`, nil),
				chromedp.Evaluate(`(() => {
					const r = (el) => el.getBoundingClientRect();
					const inside = (a, b) => a.left >= b.left - 0.5 && a.right <= b.right + 0.5 && a.top >= b.top - 0.5 && a.bottom <= b.bottom + 0.5;
					const card = r(document.getElementById('profile'));
					const form = r(document.getElementById('token-form'));
					const box = document.getElementById('token-scopes');
					const bad = [];
					if (!inside(r(box), form)) bad.push('the scope box overflows the form: ' + JSON.stringify(r(box)) + ' in ' + JSON.stringify(form));
					if (!inside(r(box), card)) bad.push('the scope box overflows the card: ' + JSON.stringify(r(box)) + ' in ' + JSON.stringify(card));
					if (box.scrollWidth > box.clientWidth + 1) bad.push('the scope box scrolls: ' + box.scrollWidth + ' > ' + box.clientWidth);
					for (const l of box.querySelectorAll('label')) {
						if (!inside(r(l), r(box))) bad.push('label ' + l.textContent.trim() + ' overflows the scope box: ' + JSON.stringify(r(l)));
					}
					return {scopes: box.querySelectorAll('#scope-list input').length, overflow: bad};
				})()`, &out),
			)
			browsertest.Screenshot(t, ctx, fmt.Sprintf("console-scopes-%dx%d", size[0], size[1]))
			if err != nil {
				t.Fatal(err)
			}
			if out.Scopes < 10 {
				t.Errorf("%d scopes in the box", out.Scopes)
			}
			for _, o := range out.Overflow {
				t.Error(o)
			}
		})
	}
}
