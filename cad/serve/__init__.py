"""`cad serve`: an HTTP server that loads a configuration once and translates documents on request
as `cad translate` does. A room above `cad.translate` and `cad.view` (it translates with the one
and draws with the other), beside `cad.experiments`.

`engine` loads what a run of `cad translate` loads and translates one document at a time;
`requests` reads and writes the bodies (the JSON API, Moses's XML-RPC); `server` is the HTTP side
(routes, limits, refusals); `run` binds, serves and stops; `page` is the page `GET /` serves,
`view` the `cad view` page of a translation; `sentences` cuts typed prose into sentences."""
