/**
 * Where a SQL adapter's connection string sends its password: the whole string but the password
 * (scheme, user, host, port, database and any parameters). Compared only, to
 * bind a masked password to the address it was given for; never shown.
 */
export function connectionDestination(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    url.password = "";
    return url.toString();
  } catch {
    // Not a URL: no part of it can be told from the password, so all of it is the destination.
    return connectionString;
  }
}
