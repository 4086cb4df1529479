"""Opening pages in a real browser for the tests: Debian's Chromium, driven by playwright."""
import os
import shutil

import pytest

INSTALL_CHROMIUM = ("the player tests need Chromium: install it with `sudo apt-get install chromium` "
                    "(Debian/Ubuntu), or put chromium or google-chrome on PATH")
# No sandbox (CI containers run as root), no GPU, and nothing that phones home while the tests run.
CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
                 '--disable-component-update', '--disable-sync']


def chromium_path():
    for name in ('chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'):
        if shutil.which(name):
            return shutil.which(name)
    return None


def missing(reason):
    if os.environ.get('CI') or os.environ.get('MICROGRAD_REQUIRE_EXTRAS'):  # make test installed what they need
        pytest.fail(reason)
    pytest.skip(reason)


class Page:
    """A page opened in Chromium, with every console error and every request it made."""

    def __init__(self, browser, url, javascript=True, offline_except=None, width=1200):
        self.context = browser.new_context(java_script_enabled=javascript, viewport={'width': width, 'height': 900})
        self.page = self.context.new_page()
        self.errors, self.requests = [], []
        self.page.on('console', lambda message: message.type == 'error' and self.errors.append(message.text))
        self.page.on('pageerror', lambda error: self.errors.append(str(error)))
        self.page.on('request', lambda request: self.requests.append(request.url))
        if offline_except is not None:  # answer requests to the network with nothing, as if offline but quietly
            self.page.route(lambda url: not url.startswith(offline_except),
                            lambda route: route.fulfill(status=200, body='', content_type='text/plain'))
        self.page.goto(url)

    def player(self, index=0):
        return self.page.locator('.micrograd-backward').nth(index)

    def shown(self, index=0):
        """What the player shows of every frame on screen: its caption (all of it, the step count included, as
        draw_backward wrote it), the texts of its picture, the size and place of the picture, the smallest
        text in it as drawn on the screen (in CSS pixels), the count beside the buttons, and the zoom the
        player's buttons say it is drawn at ('fit' or '1:1') and whether they are offered."""
        return self.player(index).evaluate("""player => [...player.querySelectorAll('.mg-frame')]
            .filter(frame => getComputedStyle(frame).display !== 'none'
                             && getComputedStyle(frame).visibility === 'visible')
            .map(frame => {
              const image = frame.querySelector('img');
              const svg = new DOMParser().parseFromString(atob(image.src.split(',')[1]), 'image/svg+xml');
              const box = image.getBoundingClientRect();
              const viewBox = svg.documentElement.getAttribute('viewBox').split(' ').map(Number);
              const fonts = [...svg.querySelectorAll('text')].map(text => Number(text.getAttribute('font-size')));
              const count = frame.querySelector('.mg-count');
              const drawing = image.parentElement;
              const [left, right] = (frame.dataset.focus || '0 1').split(' ').map(x => Number(x) * drawing.scrollWidth);
              return {caption: [...frame.querySelectorAll('figcaption > div')].map(line => line.textContent)
                                 .join(' · '),
                      countInCaption: count !== null && getComputedStyle(count).display !== 'none',
                      counter: player.querySelector('.mg-counter').textContent,
                      texts: [...svg.querySelectorAll('text')].map(text => text.textContent),
                      drawn: image.complete && image.naturalWidth > 0 && box.height > 50,
                      height: frame.getBoundingClientRect().height,
                      picture: {top: box.top + scrollY, left: box.left, width: box.width, height: box.height},
                      scale: box.width / image.naturalWidth,
                      smallestTextPx: Math.min(...fonts) * box.width / viewBox[2],
                      scrolls: drawing.scrollWidth > drawing.clientWidth,
                      // all of the drawing on the screen, none of it scrolled out of view or past the window
                      wholeInView: drawing.scrollWidth <= drawing.clientWidth + 1 && box.left >= 0
                                   && box.right <= document.documentElement.clientWidth,
                      zoom: [...player.querySelectorAll('[data-zoom]')]
                            .filter(button => button.getAttribute('aria-pressed') === 'true')
                            .map(button => button.dataset.zoom)[0] || null,
                      zoomOffered: getComputedStyle(player.querySelector('.mg-zoom')).display !== 'none',
                      // what the frame highlights lies within the part of the drawing in view
                      focusInView: left >= drawing.scrollLeft - 1
                                   && right <= drawing.scrollLeft + drawing.clientWidth + 1};
            })""")

    def click(self, action, index=0):
        self.player(index).locator(f'[data-go={action}]').click()

    def zoom(self, mode, index=0):
        """Press the player's 'fit width' (mode 'fit') or '1:1' button."""
        self.player(index).locator(f'[data-zoom="{mode}"]').click()

    def close(self):
        self.context.close()
