
same