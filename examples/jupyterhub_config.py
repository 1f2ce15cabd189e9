# A game club's JupyterHub: every keeper logs in to their own JupyterLab (their campaigns in their own home, a git
# repository each if they like), opens a campaign's table notebook and runs it; the players join through the hub's
# own URL, each with the link the keeper's table shows (https://club.example/user/<keeper>/delvebook/#<secret>).
#
# For a small club on one machine (a few keepers, each a user account of the machine):
#
#   python -m pip install jupyterhub 'delvebook[all]'        # in the environment the keepers' servers run in
#   npm install -g configurable-http-proxy                    # the hub's proxy (Node.js)
#   sudo jupyterhub -f jupyterhub_config.py                   # as root: it starts each keeper's server as them
#
# Each keeper logs in with their own account's password (PAM), then: `delvebook new my-keep` in JupyterLab's
# terminal (or copy a campaign folder in), open my-keep.ipynb, Run All, and in the table's Keeper panel click
# "Serve the players' pages". A player's page needs only its link: it never logs in to the hub, and it reaches
# the keeper's campaign and nothing else of the keeper's JupyterLab. The pages are served while the keeper's own
# server runs (the hub stops idle servers only if you add a culler: give it a generous timeout on a game night).
#
# A bigger club, or one in the cloud: Zero to JupyterHub on Kubernetes (z2jh.jupyter.org) runs the same hub with
# a server per keeper in its own container and a persistent volume for each home. Put `delvebook[all]` in the
# single-user image (singleuser.image: a Dockerfile FROM quay.io/jupyter/minimal-notebook that pip-installs it),
# and nothing else changes: the players' pages come with the package, switched on in every Jupyter server it is
# installed in, and the hub's proxy routes /user/<keeper>/delvebook/ to that keeper's server like the rest.

c = get_config()  # noqa: F821  (JupyterHub's config loader provides it)

# Where the club reaches the hub. Put it behind HTTPS (a reverse proxy such as Caddy or nginx, or
# c.JupyterHub.ssl_cert / ssl_key): the players' links carry their secrets in the part after '#', which a browser
# never sends, but the pages themselves should travel encrypted on a public network.
c.JupyterHub.bind_url = "http://:8000"

# The keepers: users of this machine, logging in with their own passwords.
c.JupyterHub.authenticator_class = "pam"
c.Authenticator.allowed_users = {"ana", "ben"}  # the club's keepers (or c.Authenticator.allow_all = True)
c.Authenticator.admin_users = {"ana"}

# Each keeper's JupyterLab runs as that user, in their home.
c.JupyterHub.spawner_class = "jupyterhub.spawner.LocalProcessSpawner"
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~"
c.Spawner.cmd = ["jupyterhub-singleuser"]
