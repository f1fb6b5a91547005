// The usage page's charts and live tail. The charts (uPlot, one per .usage-plot) are drawn from
// the summary at the section's data-source, a bar per bucket labelled as the site's own local
// hours, days or weeks; the totals and a table of the same numbers are in the page already, for
// whoever cannot see a chart. The live tail opens the EventSource at data-stream (the browser
// reconnects with the last event's id and misses nothing) and lists the newest events first.
"use strict";

(function () {
  var root = document.getElementById("usage");
  if (!root || typeof uPlot === "undefined") return;
  var status = root.querySelector(".usage-status");
  var bucket = root.dataset.bucket;
  var HEIGHT = 200;
  var MONTHS = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(" ");
  // Ticks every so many buckets: whole hours of a day, days of a week, weeks of a quarter.
  var TICK_STEPS = {
    hour: [1, 2, 3, 4, 6, 12, 24],
    day: [1, 2, 7, 14, 28],
    week: [1, 2, 4, 13, 26],
  };
  var COLORS = { sessions: "#1d4ed8", minutes: "#047857", cost_cents: "#b45309" };
  var dollars = new Intl.NumberFormat("en-US", {
    style: "currency",
    currency: "USD",
    minimumFractionDigits: 2,
    maximumFractionDigits: 4,
  });
  var number = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 });

  function dayMonth(label) {
    return Number(label.slice(8, 10)) + " " + MONTHS[Number(label.slice(5, 7)) - 1];
  }

  // A tick's label: an hour by its time (its date at midnight), a day or week by its date.
  function tickOf(label) {
    if (bucket !== "hour") return dayMonth(label);
    return label.slice(11, 13) === "00" ? dayMonth(label) : label.slice(11, 16);
  }

  function fullLabel(label) {
    if (bucket === "hour") return label.slice(0, 10) + " " + label.slice(11, 16);
    return bucket === "week" ? "week of " + label : label;
  }

  function valueOf(figures, field) {
    if (field !== "cost_cents") return figures[field];
    return figures.cost_cents === undefined ? null : figures.cost_cents / 100;
  }

  function formatted(field, value) {
    if (value === null || value === undefined) return "–";
    return field === "cost_cents" ? dollars.format(value) : number.format(value);
  }

  function optionsOf(box, labels) {
    var field = box.dataset.field;
    var title = document.getElementById("chart-" + field).textContent;
    var labelAt = function (i) {
      return Number.isInteger(i) && labels[i] !== undefined ? labels[i] : null;
    };
    return {
      width: Math.max(box.clientWidth, 160),
      height: HEIGHT,
      cursor: { drag: { x: false, y: false }, points: { show: false } },
      scales: {
        x: {
          time: false,
          range: function () {
            return [-0.5, labels.length - 0.5];
          },
        },
        y: {
          range: function (u, min, max) {
            return [0, max > 0 ? max * 1.1 : 1];
          },
        },
      },
      axes: [
        {
          space: 56,
          incrs: TICK_STEPS[bucket],
          values: function (u, splits) {
            return splits.map(function (i) {
              var label = labelAt(i);
              return label === null ? "" : tickOf(label);
            });
          },
        },
        {
          size: 64,
          incrs:
            field === "sessions"
              ? [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4]
              : undefined,
          values: function (u, splits) {
            return splits.map(function (v) {
              return formatted(field, v);
            });
          },
        },
      ],
      series: [
        {
          label: bucket.charAt(0).toUpperCase() + bucket.slice(1),
          value: function (u, i) {
            var label = labelAt(i);
            return label === null ? "" : fullLabel(label);
          },
        },
        {
          label: title,
          stroke: COLORS[field],
          fill: COLORS[field] + "99",
          width: 1,
          paths: uPlot.paths.bars({ size: [0.7, 48] }),
          points: { show: false },
          value: function (u, v) {
            return formatted(field, v);
          },
        },
      ],
    };
  }

  function draw(summary) {
    var labels = summary.buckets.map(function (b) {
      return b.bucket;
    });
    var xs = labels.map(function (label, i) {
      return i;
    });
    root.querySelectorAll(".usage-plot").forEach(function (box) {
      var values = summary.buckets.map(function (b) {
        return valueOf(b, box.dataset.field);
      });
      var plot = new uPlot(optionsOf(box, labels), [xs, values], box);
      var width = box.clientWidth;
      if (typeof ResizeObserver !== "undefined") {
        new ResizeObserver(function () {
          if (box.clientWidth === width) return;
          width = box.clientWidth;
          plot.setSize({ width: Math.max(width, 160), height: HEIGHT });
        }).observe(box);
      }
    });
    root.dataset.drawn = "true";
  }

  status.textContent = "Drawing the charts…";
  fetch(root.dataset.source, {
    credentials: "same-origin",
    headers: { Accept: "application/json" },
  })
    .then(function (response) {
      return response.json().then(function (answer) {
        if (!response.ok) throw new Error(answer.error ? answer.error.message : "Failed");
        draw(answer.data);
        status.textContent = "";
      });
    })
    .catch(function (error) {
      status.textContent =
        "The charts could not be drawn (" + error.message + "); the numbers above and below stand.";
    });
})();

// The live tail: the site's usage events as they are recorded, newest first, the last 50 kept.
(function () {
  var live = document.querySelector(".usage-live[data-stream]");
  if (!live || typeof EventSource === "undefined") return;
  var list = live.querySelector(".usage-tail");
  var state = live.querySelector(".usage-live-state");
  var stale = live.querySelector(".usage-stale");
  var KEEP = 50;
  var dollars = new Intl.NumberFormat("en-US", {
    style: "currency",
    currency: "USD",
    minimumFractionDigits: 2,
    maximumFractionDigits: 4,
  });
  var NAMES = {
    session_start: "Session started",
    session_end: "Session ended",
    function_call: "Function call",
    db_query: "Database query",
    image_description: "Image described",
  };

  function durationOf(seconds) {
    if (seconds < 60) return Math.round(seconds * 10) / 10 + " s";
    return Math.round((seconds / 60) * 100) / 100 + " min";
  }

  function itemOf(event) {
    var item = document.createElement("li");
    var time = document.createElement("time");
    time.dateTime = event.created_at;
    time.textContent = event.created_at.slice(11, 19) + " UTC";
    var type = document.createElement("span");
    type.className = "type";
    type.textContent = NAMES[event.type] || event.type;
    item.append(time, type);
    if (event.function_name) {
      var name = document.createElement("code");
      name.textContent = event.function_name;
      item.append(name);
    }
    var notes = [];
    if (typeof event.duration_seconds === "number") notes.push(durationOf(event.duration_seconds));
    if (typeof event.cost_cents === "number")
      notes.push("cost " + dollars.format(event.cost_cents / 100));
    if (notes.length > 0) {
      var note = document.createElement("span");
      note.className = "muted";
      note.textContent = notes.join(", ");
      item.append(note);
    }
    return item;
  }

  var source = new EventSource(live.dataset.stream);
  source.addEventListener("open", function () {
    state.textContent = "Live: new events of this site show below as they happen.";
  });
  source.addEventListener("error", function () {
    state.textContent =
      source.readyState === EventSource.CLOSED
        ? "The live tail stopped: reload the page to start it again."
        : "The live tail lost its connection and is reconnecting…";
  });
  source.addEventListener("usage_event", function (message) {
    var event = JSON.parse(message.data);
    list.insertBefore(itemOf(event), list.firstChild);
    while (list.children.length > KEEP) list.removeChild(list.lastChild);
    stale.hidden = false;
  });
})();
