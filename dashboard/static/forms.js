// The dashboard's forms. Each <form data-api> posts its fields as JSON to its API path on the
// dashboard's own origin (so the browser marks it Sec-Fetch-Site: same-origin, which the service
// requires of a change made with the session cookie), then goes to data-next or shows data-done;
// an error's message goes to the form's role=alert paragraph. A page opened from a mailed or
// printed link finds its token in the URL's fragment, which never reaches a server.
"use strict";

(function () {
  var token = new URLSearchParams(location.hash.slice(1)).get("token");
  if (token !== null) {
    document.querySelectorAll('input[name="token"]').forEach(function (input) {
      input.value = token;
    });
    history.replaceState(null, "", location.pathname);
  }

  document.querySelectorAll("form[data-api]").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var alert = form.querySelector('[role="alert"]');
      var button = form.querySelector('button[type="submit"]');
      var body = {};
      new FormData(form).forEach(function (value, name) {
        if (value !== "") body[name] = value;
      });
      if (alert) alert.textContent = "";
      if (button) button.disabled = true;
      fetch(form.dataset.api, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      })
        .then(function (response) {
          return response.json().then(function (answer) {
            if (!response.ok) throw new Error(answer.error ? answer.error.message : "Failed");
            if (form.dataset.next) location.assign(form.dataset.next);
            else if (alert && form.dataset.done) alert.textContent = form.dataset.done;
          });
        })
        .catch(function (error) {
          if (alert) alert.textContent = error.message;
        })
        .finally(function () {
          if (button) button.disabled = false;
        });
    });
  });
})();
