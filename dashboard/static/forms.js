// The dashboard's forms. Each <form data-api> sends its fields as JSON to its API path on the
// dashboard's own origin (so the browser marks it Sec-Fetch-Site: same-origin, which the service
// requires of a change made with the session cookie), with data-method (POST by default); fields
// named `x[]` make an array `x`. Then it goes to data-next (empty: this page again), shows
// data-done, or shows the answer's data-show field in the form's output; an error's message goes
// to the form's role=alert paragraph. A form with data-refresh (a selector, such as "#key-list")
// then has that part of the page drawn again from the page as the service now serves it, so
// what the form changed shows at once without a reload (which would lose the value shown once).
// A page opened from a mailed or printed link finds its token in the URL's fragment, which never
// reaches a server.
"use strict";

(function () {
  var token = new URLSearchParams(location.hash.slice(1)).get("token");
  if (token !== null) {
    document.querySelectorAll('input[name="token"]').forEach(function (input) {
      input.value = token;
    });
    history.replaceState(null, "", location.pathname);
  }

  function refresh(selector) {
    return fetch(location.href, { credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) throw new Error("The page could not be read again: reload it.");
        return response.text();
      })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html").querySelector(selector);
        var current = document.querySelector(selector);
        if (fresh && current) current.replaceWith(document.importNode(fresh, true));
      });
  }

  function showAnswer(form, value) {
    var shown = form.querySelector(".shown");
    shown.querySelector("output").textContent = value;
    shown.hidden = false;
  }

  // Heard on the document, so that a form drawn again in place (data-refresh) works as well.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches("form[data-api]")) return;
    event.preventDefault();
    var alert = form.querySelector('[role="alert"]');
    var button = form.querySelector('button[type="submit"]');
    var body = {};
    new FormData(form).forEach(function (value, name) {
      if (name.slice(-2) === "[]") {
        var list = name.slice(0, -2);
        (body[list] = body[list] || []).push(value);
      } else if (value !== "") body[name] = value;
    });
    if (alert) {
      alert.textContent = "";
      delete alert.dataset.state;
    }
    if (button) button.disabled = true;
    var method = form.dataset.method || "POST";
    fetch(form.dataset.api, {
      method: method,
      credentials: "same-origin",
      headers: { "Content-Type": "application/json" },
      body: method === "DELETE" ? undefined : JSON.stringify(body),
    })
      .then(function (response) {
        return response.json().then(function (answer) {
          if (!response.ok) throw new Error(answer.error ? answer.error.message : "Failed");
          if (form.dataset.next !== undefined) location.assign(form.dataset.next || location.href);
          else if (form.dataset.show) showAnswer(form, answer.data[form.dataset.show]);
          else if (alert && form.dataset.done) {
            alert.textContent = form.dataset.done;
            alert.dataset.state = "done";
          }
          if (form.dataset.next === undefined && form.dataset.refresh)
            return refresh(form.dataset.refresh);
        });
      })
      .catch(function (error) {
        if (alert) alert.textContent = error.message;
      })
      .finally(function () {
        if (button) button.disabled = false;
      });
  });
})();

// A button with data-copy copies the text of the element its selector names, and says so.
(function () {
  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    button.addEventListener("click", function () {
      var source = document.querySelector(button.dataset.copy);
      var status = button.parentElement.querySelector('[role="status"]');
      navigator.clipboard.writeText(source.textContent).then(
        function () {
          if (status) status.textContent = "Copied.";
        },
        function () {
          if (status) status.textContent = "Copy failed: select the text and copy it by hand.";
        },
      );
    });
  });
})();
