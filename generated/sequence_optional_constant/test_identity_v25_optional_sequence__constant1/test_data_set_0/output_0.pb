
same*