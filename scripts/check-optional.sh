#!/bin/sh
# check-optional.sh says which optional offline resources are present. The
# engine degrades visibly without them (the kind is reported as skipped).
if [ ! -f /usr/share/wordnet/data.noun ]; then
	echo "note: WordNet (Debian package wordnet-base) is not installed: the query/wordnet perturbation will be skipped." >&2
	echo "      install it with: sudo apt-get install wordnet-base" >&2
fi
exit 0
