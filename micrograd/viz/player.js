// The draw_backward player: turns a column of frames (each a picture and its caption) into one frame
// at a time, with previous / play / next buttons, a slider and the arrow keys. Python's player.py puts
// this file into the page and calls startPlayer with the player's element. Without scripts the frames
// simply stand one under the other, each caption with its own step count, and the controls stay hidden.
function startPlayer(player) {
  if (!player || player.getAttribute('data-ready')) { return; }  // a notebook may run an output twice
  player.setAttribute('data-ready', 'yes');
  var frames = player.querySelectorAll('.mg-frame');
  var drawings = player.querySelectorAll('.mg-drawing');
  var controls = player.querySelector('.mg-controls');
  var slider = player.querySelector('input[type=range]');
  var counter = player.querySelector('.mg-counter');
  var hint = player.querySelector('.mg-hint');
  var zoom = player.querySelector('.mg-zoom');
  var zoomButtons = player.querySelectorAll('[data-zoom]');
  var prev = player.querySelector('[data-go=prev]');
  var next = player.querySelector('[data-go=next]');
  var play = player.querySelector('[data-go=play]');
  var last = frames.length - 1, current = -1, timer = null;
  var SECONDS_PER_FRAME = 1.5;
  // A drawing wider than the player is either scaled down to fit its width or drawn 1:1 and panned. Until the
  // reader picks one, it fits if its text stays readable: scaled by no less than the player's
  // data-fit-least-scale (player.py says why).
  var FIT_LEAST_SCALE = Number(player.getAttribute('data-fit-least-scale')) || 1;
  var chosen = null;  // 'fit' or '1:1' once the reader has picked

  // One count: the caption's ('step 2/3 · ...') moves beside the buttons, where the slider is.
  var counts = player.querySelectorAll('.mg-count');
  for (var c = 0; c < counts.length; c++) { counts[c].style.display = 'none'; }
  for (var f = 0; f < frames.length; f++) { frames[f].style.margin = '0'; }

  // One frame shown at a time. Every frame draws the same graph at the same size, so the drawing stays
  // where it is and only its caption, beneath it, may be a line longer or shorter: nothing is kept
  // blank for the longest caption.
  function show(k) {
    k = Math.max(0, Math.min(last, k));
    var from = current;
    frames[k].style.display = '';
    zoomTo(k);
    if (drawings.length === frames.length) {
      // A drawing wider than the page scrolls sideways, at its own size. It stays where the reader moved it,
      // from frame to frame, unless what this step highlights is out of view: then it pans to that.
      if (from >= 0) { drawings[k].scrollLeft = drawings[from].scrollLeft; }
      bringIntoView(drawings[k], frames[k].getAttribute('data-focus'));
    }
    if (from >= 0 && from !== k) { frames[from].style.display = 'none'; }
    current = k;
    var count = frames[k].querySelector('.mg-count');
    slider.value = current;
    counter.textContent = count ? count.textContent.replace(/ · $/, '') : 'step ' + current + '/' + last;
    prev.disabled = current === 0;
    next.disabled = current === last;
  }

  // Fit or 1:1, for every frame alike (they are drawn at one size); the controls say which, and only a
  // drawing wider than the player has a choice to make.
  function zoomTo(k) {
    var picture = drawings.length ? drawings[k].querySelector('img') : null;
    var room = drawings.length ? drawings[k].clientWidth : 0;
    var wide = picture !== null && picture.naturalWidth > room + 1;
    var mode = chosen || (wide && picture.naturalWidth * FIT_LEAST_SCALE > room ? '1:1' : 'fit');
    for (var d = 0; d < drawings.length; d++) {
      var image = drawings[d].querySelector('img');
      if (image) { image.style.maxWidth = mode === 'fit' ? '100%' : 'none'; }
    }
    for (var b = 0; b < zoomButtons.length; b++) {
      var on = zoomButtons[b].getAttribute('data-zoom') === mode;
      zoomButtons[b].setAttribute('aria-pressed', on ? 'true' : 'false');
      zoomButtons[b].style.fontWeight = on ? 'bold' : '';
    }
    zoom.style.display = wide ? '' : 'none';
    var panning = wide && mode === '1:1';
    hint.hidden = !panning;
    hint.style.display = panning ? '' : 'none';
  }

  // focus: 'left right', where the highlighted node, op and parents lie across the drawing (0 to 1).
  function bringIntoView(drawing, focus) {
    if (!focus || drawing.scrollWidth <= drawing.clientWidth) { return; }
    var span = focus.split(' ').map(function (x) { return Number(x) * drawing.scrollWidth; });
    var margin = 24, view = drawing.clientWidth;
    if (span[0] >= drawing.scrollLeft && span[1] <= drawing.scrollLeft + view) { return; }
    if (span[1] - span[0] + 2 * margin <= view) {  // all of it, centred
      drawing.scrollLeft = (span[0] + span[1] - view) / 2;
    } else {  // wider than the page: the node whose gradient flows, on the right of a left-to-right drawing
      drawing.scrollLeft = span[1] + margin - view;
    }
  }

  function stop() {
    clearInterval(timer);
    timer = null;
    play.textContent = '\u25B6 play';
  }

  // Dragging a drawing with the mouse pans it sideways, as a map does (touch screens scroll it natively).
  function pannable(drawing) {
    var startX = null, startScroll = 0;
    drawing.addEventListener('pointerdown', function (event) {
      if (event.pointerType !== 'mouse' || event.button !== 0 || drawing.scrollWidth <= drawing.clientWidth) {
        return;
      }
      startX = event.clientX;
      startScroll = drawing.scrollLeft;
      drawing.setPointerCapture(event.pointerId);
      drawing.style.cursor = 'grabbing';
      event.preventDefault();
    });
    drawing.addEventListener('pointermove', function (event) {
      if (startX !== null) { drawing.scrollLeft = startScroll - (event.clientX - startX); }
    });
    function end() { startX = null; drawing.style.cursor = ''; }
    drawing.addEventListener('pointerup', end);
    drawing.addEventListener('pointercancel', end);
  }
  // A picture is drawn once its data is decoded, which may be after this script ran: then its width is known.
  function placed(k) {
    return function () { if (k === current) { show(current); } };
  }
  for (var d = 0; d < drawings.length; d++) {
    pannable(drawings[d]);
    var picture = drawings[d].querySelector('img');
    if (picture && !picture.complete) { picture.addEventListener('load', placed(d)); }
  }

  for (var z = 0; z < zoomButtons.length; z++) {
    zoomButtons[z].onclick = function () { chosen = this.getAttribute('data-zoom'); show(current); };
  }
  prev.onclick = function () { stop(); show(current - 1); };
  next.onclick = function () { stop(); show(current + 1); };
  slider.oninput = function () { stop(); show(Number(slider.value)); };
  play.onclick = function () {
    if (timer) { stop(); return; }
    if (current === last) { show(0); }
    play.textContent = '\u275A\u275A pause';
    timer = setInterval(function () {
      if (current === last) { stop(); } else { show(current + 1); }
    }, SECONDS_PER_FRAME * 1000);
  };
  player.onkeydown = function (event) {
    if (event.target === slider) { return; }  // the slider has arrow keys of its own
    if (event.key === 'ArrowLeft') { prev.onclick(); } else if (event.key === 'ArrowRight') { next.onclick(); }
  };
  // The page may be made narrower or wider: whether the drawing fits, or needs panning, may change with it.
  window.addEventListener('resize', function () { show(current); });

  for (var i = 0; i < frames.length; i++) { frames[i].style.display = 'none'; }
  controls.hidden = false;
  controls.style.display = 'flex';
  show(0);
}
