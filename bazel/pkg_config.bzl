"""pkg_config_library: a cc_library wrapping a system library found by pkg-config.

Link and compile flags come from pkg-config at fetch time, so a Debian package
update (Debian's gRPC links a long, changing list of absl_* libraries) needs no
edit here. -D flags become `defines` (plus `select_defines`, per build
setting), everything else from --libs `linkopts`.
Headers live in /usr/include, a system include directory, so no `hdrs` are
needed.
"""

def _run_pkg_config(ctx, args):
    result = ctx.execute(["pkg-config"] + args)
    if result.return_code != 0:
        fail("pkg-config %s failed (is the Debian -dev package installed? see hack/deps.txt): %s" % (" ".join(args), result.stderr))
    return [word for word in result.stdout.strip().replace("\n", " ").split(" ") if word]

def _pkg_config_library_impl(ctx):
    modules = ctx.attr.modules
    cflags = _run_pkg_config(ctx, ["--cflags"] + modules)
    libs = _run_pkg_config(ctx, ["--libs"] + modules)
    defines = repr([flag[2:] for flag in cflags if flag.startswith("-D")])
    if ctx.attr.select_defines:
        choices = dict(ctx.attr.select_defines)
        choices["//conditions:default"] = []
        defines += " + select(%s)" % repr(choices)
    linkopts = ["-l" + lib for lib in ctx.attr.extra_libs] + libs
    ctx.file("WORKSPACE", 'workspace(name = "%s")\n' % ctx.name)
    ctx.file("BUILD.bazel", """
cc_library(
    name = "{name}",
    defines = {defines},
    linkopts = {linkopts},
    visibility = ["//visibility:public"],
)
""".format(name = ctx.attr.name, defines = defines, linkopts = repr(linkopts)))

pkg_config_library = repository_rule(
    implementation = _pkg_config_library_impl,
    attrs = {
        "modules": attr.string_list(mandatory = True, doc = "pkg-config module names"),
        "extra_libs": attr.string_list(doc = "libraries without a .pc file, linked before the modules"),
        "select_defines": attr.string_list_dict(
            doc = "config_setting label -> defines added for dependents when it matches",
        ),
    },
    environ = ["PKG_CONFIG_PATH"],
    local = True,
)
