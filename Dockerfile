# gp-sandbox container image: a static binary on an empty base.
#
#   docker build --build-arg VERSION="$(git describe --always --dirty)" -t gp-sandbox .
#   docker run --rm -p 127.0.0.1:8080:8080 -e GPSANDBOX_ADMIN_OPEN=1 gp-sandbox
#
# The sandbox listens on 0.0.0.0:8080 in the container, so it refuses to start with an
# open admin API: set GPSANDBOX_ADMIN_TOKEN, or GPSANDBOX_ADMIN_OPEN=1 when the port is
# published where only you reach it. Written for the legacy builder too (no RUN
# --mount, no heredocs).

FROM golang:1.26-bookworm AS build
WORKDIR /src
# Modules are fetched during the build, through the proxy the builder is given.
ARG GOPROXY=https://proxy.golang.org,direct
ARG GOSUMDB=sum.golang.org
ENV GOPROXY=${GOPROXY} GOSUMDB=${GOSUMDB} GOFLAGS=-mod=readonly CGO_ENABLED=0
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/gpsandbox ./cmd/gpsandbox \
 && mkdir -p /out/data \
 && chown 65532:65532 /out/data

FROM scratch
# Status notifications may go to https URLs: keep the CA bundle.
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/gpsandbox /gpsandbox
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
VOLUME /data
ENV GPSANDBOX_DB=/data/gpsandbox.db \
    GPSANDBOX_ADDR=0.0.0.0:8080
EXPOSE 8080
# scratch has no curl: the binary probes its own health endpoint (GPSANDBOX_ADDR, and
# HTTPS when GPSANDBOX_TLS is set). The server is ready within milliseconds, and Docker
# reports healthy only after the first probe, one interval after the start: hence a
# one-second interval (a probe is one short exec of the binary). HEALTHCHECK
# --start-interval would probe fast at start only, but engines before Docker 25 refuse
# to build a Dockerfile that uses it.
HEALTHCHECK --interval=1s --timeout=3s --start-period=10s --retries=3 CMD ["/gpsandbox", "healthcheck"]
ENTRYPOINT ["/gpsandbox"]
CMD ["serve"]
