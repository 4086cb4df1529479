// The draw_backward player: turns a column of frames (each a picture and its caption) into one frame
// at a time, with previous / play / next buttons, a slider and the arrow keys. Python's player.py puts
// this file into the page and calls startPlayer with the player's element. Without scripts the frames
// simply stand one under the other, and the controls stay hidden.
function startPlayer(player) {
  if (!player || player.getAttribute('data-ready')) { return; }  // a notebook may run an output twice
  player.setAttribute('data-ready', 'yes');
  var frames = player.querySelectorAll('.mg-frame');
  var controls = player.querySelector('.mg-controls');
  var slider = player.querySelector('input[type=range]');
  var counter = player.querySelector('.mg-counter');
  var prev = player.querySelector('[data-go=prev]');
  var next = player.querySelector('[data-go=next]');
  var play = player.querySelector('[data-go=play]');
  var last = frames.length - 1, current = 0, timer = null;
  var SECONDS_PER_FRAME = 1.5;

  // All frames in one grid cell: the player is as tall as its tallest frame and never jumps.
  player.querySelector('.mg-frames').style.display = 'grid';
  for (var i = 0; i < frames.length; i++) { frames[i].style.gridArea = '1 / 1'; }

  // A drawing wider than the page scrolls sideways, at its own size. backward() starts at the output, on
  // the right of a left-to-right drawing, so that is where the view starts; then it stays where the
  // reader scrolled it, from frame to frame.
  var drawings = player.querySelectorAll('.mg-drawing');
  for (var d = 0; d < drawings.length; d++) { drawings[d].scrollLeft = drawings[d].scrollWidth; }

  function show(k) {
    if (drawings.length === frames.length && k !== current) {
      drawings[Math.max(0, Math.min(last, k))].scrollLeft = drawings[current].scrollLeft;
    }
    current = Math.max(0, Math.min(last, k));
    for (var i = 0; i < frames.length; i++) {
      frames[i].style.visibility = i === current ? 'visible' : 'hidden';
    }
    slider.value = current;
    counter.textContent = 'step ' + current + ' of ' + last;  // as the captions count: step 0 is the start
    prev.disabled = current === 0;
    next.disabled = current === last;
  }

  function stop() {
    clearInterval(timer);
    timer = null;
    play.textContent = '\u25B6 play';
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

  controls.hidden = false;
  controls.style.display = 'flex';
  show(0);
}
