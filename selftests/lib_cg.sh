# SPDX-License-Identifier: GPL-2.0
# Reading the cgroups file and memory.stat, for the cgroup tests (sourced after lib.sh).

# rec FILE PATH COL: column COL of PATH's record in a cgroups table (the path is last)
rec()
{
	awk -v p="$2" -v col="$3" '
	NR == 1 { for (i = 1; i <= NF; i++) idx[$i] = i; next }
	/^#/ { next }
	$NF == p { print $idx[col]; f = 1; exit }
	END { exit !f }' "$1"
}

# subtree FILE PATH COL: COL summed over PATH and its descendants, which
# memory.stat counts (cgroup v2's figures are hierarchical)
subtree()
{
	awk -v p="$2" -v col="$3" '
	NR == 1 { for (i = 1; i <= NF; i++) idx[$i] = i; next }
	/^#/ { next }
	$NF == p || index($NF, p "/") == 1 { s += $idx[col] }
	END { print s + 0 }' "$1"
}

# stat_of FILE KEY: a memory.stat figure
stat_of()
{
	awk -v k="$2" '$1 == k { print $2; f = 1 } END { exit !f }' "$1"
}
