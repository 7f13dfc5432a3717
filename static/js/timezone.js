/* Tells the site the browser's time zone (a cookie), so deadlines and date fields are in the reader's own time.
   A zone chosen on the account page (tz_chosen) wins over the browser's. */
(function () {
  "use strict";
  var zone;
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch (error) {
    return;
  }
  if (!zone || /(?:^|; )tz_chosen=1/.test(document.cookie)) return;
  var current = (document.cookie.match(/(?:^|; )tz=([^;]*)/) || [])[1];
  if (current === zone || !/^[A-Za-z0-9_+\-\/]+$/.test(zone)) return;  // IANA names need no escaping
  document.cookie = "tz=" + zone + "; path=/; max-age=31536000; SameSite=Lax";
})();
