# SyncLab in a container, for a laptop without Debian 12: Debian 12 with the CUDA compiler and the
# packages scripts/bootstrap installs. No GPU and no NVIDIA driver are needed: the labs run in the
# simulator. x86-64 only (NVIDIA's Debian packages are built for it); on Apple silicon Docker runs
# it through emulation (slower builds), on Windows through WSL2. This file has not been built on
# the project's own machines, which run no Docker (README.md, "Requirements").
#
#   docker build -t synclab .
#   docker run --rm -it -v "$PWD":/work/synclab -w /work/synclab synclab ./synclab demo
FROM debian:12

ARG CUDA_VERSION=13-0

RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates wget gnupg git python3 zip \
 && rm -rf /var/lib/apt/lists/*

# NVIDIA's apt repository for Debian 12: the compiler, the runtime's headers and CCCL (libcu++,
# CUB); SyncLab links its own runtime (libsimcudart), so nothing else of the toolkit is used.
RUN wget -q https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/cuda-keyring_1.1-1_all.deb \
 && dpkg -i cuda-keyring_1.1-1_all.deb && rm cuda-keyring_1.1-1_all.deb \
 && apt-get update \
 && apt-get install -y --no-install-recommends cuda-nvcc-${CUDA_VERSION} cuda-cudart-dev-${CUDA_VERSION} \
      cuda-cccl-${CUDA_VERSION} \
 && rm -rf /var/lib/apt/lists/* \
 && if [ ! -e /usr/local/cuda ]; then ln -s "/usr/local/cuda-$(echo ${CUDA_VERSION} | tr - .)" /usr/local/cuda; fi
ENV PATH=/usr/local/cuda/bin:${PATH}

# The Debian packages, as on any machine: scripts/bootstrap (with the viewer's, for synclab-viz
# under Xvfb or a forwarded display).
COPY scripts/bootstrap /opt/synclab/bootstrap
RUN apt-get update && /opt/synclab/bootstrap --gui && rm -rf /var/lib/apt/lists/*

WORKDIR /work/synclab
CMD ["bash"]
