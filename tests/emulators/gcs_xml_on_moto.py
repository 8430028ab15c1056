"""Google Cloud Storage's XML API, as far as object_store writes through it,
served by moto's S3 server: the two APIs share their requests (PUT, ranged
GET, HEAD, DELETE, multipart upload, ListObjectsV2) and differ in header
names, which this renames. For tests/cli_gcs.rs, because no GCS emulator
installable here takes object_store's writes (docs/write-path.md, "Merging
in buckets"). It proves our requests and object_store's GCS client, not
Google's server.

    python3 tests/emulators/gcs_xml_on_moto.py PORT [PARTS_LOG]

With PARTS_LOG, each part of a multipart upload appends a line "NUMBER
BYTES" there, so a test can check the sizes an upload chose.
"""

import sys
from urllib.parse import parse_qs

from moto.moto_server.werkzeug_app import create_backend_app
from werkzeug.serving import run_simple

S3 = create_backend_app("s3")
GOOG = "HTTP_X_GOOG_"


def gcs(environ, start_response):
    if PARTS_LOG and environ["REQUEST_METHOD"] == "PUT":
        number = parse_qs(environ.get("QUERY_STRING", "")).get("partNumber")
        if number:
            with open(PARTS_LOG, "a") as log:
                log.write(f"{number[0]} {environ.get('CONTENT_LENGTH', '')}\n")
    for key in [k for k in environ if k.startswith(GOOG)]:
        value = environ.pop(key)
        name = key[len(GOOG):]
        if name == "IF_GENERATION_MATCH":
            # Generation 0 means "only if absent"; other generations are not
            # kept by moto, and our writers send none.
            if value == "0":
                environ["HTTP_IF_NONE_MATCH"] = "*"
        else:
            environ["HTTP_X_AMZ_" + name] = value  # e.g. copy-source, meta-*
    # object_store sends no token with OAuth off; moto answers a request
    # without one as an anonymous user (403), so it gets a dummy.
    environ.setdefault("HTTP_AUTHORIZATION", "Bearer emulator")
    return S3(environ, start_response)


PARTS_LOG = sys.argv[2] if len(sys.argv) > 2 else None

if __name__ == "__main__":
    run_simple("127.0.0.1", int(sys.argv[1]), gcs, threaded=True)
