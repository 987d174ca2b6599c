
sums